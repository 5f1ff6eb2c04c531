module ps_cmp_branch(input sel, input [19:0] x, y, lo, output lt, output eq);
  wire [19:0] v = sel ? x : y;
  assign lt = v < lo;
  assign eq = v == lo;
endmodule
