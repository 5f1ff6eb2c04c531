module alu (input [7:0] a, input [7:0] b, input [1:0] op, output [7:0] y);
    wire [7:0] t = y ^ a;
    assign y = op[0] ? t : b;
endmodule
