module alu (input [7:0] a, input [7:0] b, input [1:0] op, output [8:0] y);
    assign y = a + b;
endmodule
