module ps_prod_assoc(input [3:0] a, input [3:0] b, input [3:0] c, output [7:0] p, output [11:0] q);
  wire [7:0] ab = a * b;
  assign p = ab;
  assign q = ab * c;
endmodule
