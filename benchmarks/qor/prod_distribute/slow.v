module prod_distribute(input [3:0] a, input [3:0] b, input [3:0] c, output [7:0] p, output [7:0] q, output [8:0] r);
  assign p = a * b;
  assign q = a * c;
  assign r = a * (b + c);
endmodule
