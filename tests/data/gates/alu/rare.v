// Wrong for exactly one input pair: random stimulus misses it, the SAT proof does not.
module alu (input [7:0] a, input [7:0] b, input [1:0] op, output reg [7:0] y);
    always @(*)
        case (op)
            2'd0: y = (a == 8'h5a && b == 8'hc3) ? 8'h00 : a + b;
            2'd1: y = a - b;
            2'd2: y = a & b;
            default: y = a ^ b;
        endcase
endmodule
