module reassoc_const(input [9:0] a, b, c, output [11:0] y);
  assign y = (a + 12'd3) + (b + 12'd5) + (c - 12'd8);
endmodule
