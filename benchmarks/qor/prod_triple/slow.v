module prod_triple(input [5:0] a, input [5:0] b, output [11:0] p, output [13:0] q);
  wire [7:0] b3 = 8'd3 * b;
  assign p = a * b;
  assign q = a * b3;
endmodule
