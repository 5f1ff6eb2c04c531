module ps_cmp_branch(input sel, input [19:0] x, y, lo, output lt, output eq);
  assign lt = sel ? (x < lo) : (y < lo);
  assign eq = sel ? (x == lo) : (y == lo);
endmodule
