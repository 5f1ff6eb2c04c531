module ps_prod_minus_one(input [5:0] a, input [5:0] b, output [11:0] p, output [11:0] q);
  wire [11:0] ab = a * b;
  assign p = ab;
  assign q = ab - a;
endmodule
