module mux_share_add(input sel, input [15:0] a, b, c, output [16:0] y);
  assign y = sel ? a + b : a + c;
endmodule
