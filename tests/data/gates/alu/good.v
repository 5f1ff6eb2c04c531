module alu (input [7:0] a, input [7:0] b, input [1:0] op, output [7:0] y);
    wire [7:0] sum = a + (op[0] ? ~b : b) + {7'd0, op[0]};
    assign y = op[1] ? (op[0] ? a ^ b : a & b) : sum;
endmodule
