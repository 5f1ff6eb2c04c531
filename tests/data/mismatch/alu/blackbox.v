(* blackbox *)
module alu_core (input [7:0] a, input [7:0] b, input [1:0] op, output reg [7:0] y);
    always @(*) case (op) 2'd0: y = a + b; 2'd1: y = a - b; 2'd2: y = a & b; default: y = a ^ b; endcase
endmodule
module alu (input [7:0] a, input [7:0] b, input [1:0] op, output [7:0] y);
    alu_core u (.a(a), .b(b), .op(op), .y(y));
endmodule
