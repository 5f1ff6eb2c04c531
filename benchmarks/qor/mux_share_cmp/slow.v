module mux_share_cmp(input sel, input [23:0] a, b, c, output lt);
  assign lt = sel ? a < b : a < c;
endmodule
