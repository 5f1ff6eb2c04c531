module prod_triple(input [5:0] a, input [5:0] b, output [11:0] p, output [13:0] q);
  wire [11:0] ab = a * b;
  assign p = ab;
  assign q = {ab, 1'b0} + ab;
endmodule
