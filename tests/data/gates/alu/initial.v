module alu (input [7:0] a, input [7:0] b, input [1:0] op, output reg [7:0] y);
    initial y = 8'd0;
    always @(*) y = a + b;
endmodule
