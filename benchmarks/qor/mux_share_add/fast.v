module mux_share_add(input sel, input [15:0] a, b, c, output [16:0] y);
  assign y = a + (sel ? b : c);
endmodule
