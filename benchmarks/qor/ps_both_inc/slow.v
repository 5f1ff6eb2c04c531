module ps_both_inc(input [5:0] a, input [5:0] b, output [11:0] p, output [12:0] q);
  assign p = a * b;
  assign q = (a + 7'd1) * (b + 7'd1);
endmodule
