module ps_prod_assoc(input [3:0] a, input [3:0] b, input [3:0] c, output [7:0] p, output [11:0] q);
  assign p = a * b;
  assign q = a * (c * b);
endmodule
