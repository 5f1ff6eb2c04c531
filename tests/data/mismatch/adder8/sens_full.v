module adder8 (input [7:0] a, input [7:0] b, output reg [7:0] y);
    always @(a or b) y = a + b;
endmodule
