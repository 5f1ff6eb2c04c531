module alu (input [7:0] a, input [7:0] b, input [1:0] op, output [7:0] y);
    assign #1 y = op == 2'd0 ? a + b : op == 2'd1 ? a - b : op == 2'd2 ? a & b : a ^ b;
endmodule
