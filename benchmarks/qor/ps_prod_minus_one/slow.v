module ps_prod_minus_one(input [5:0] a, input [5:0] b, output [11:0] p, output [11:0] q);
  assign p = a * b;
  assign q = a * (b - 6'd1);
endmodule
