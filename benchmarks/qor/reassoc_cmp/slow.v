module reassoc_cmp(input [9:0] a, b, output gt);
  assign gt = (a + 12'd100) > (b + 12'd100);
endmodule
