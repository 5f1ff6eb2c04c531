module reassoc_cmp(input [9:0] a, b, output gt);
  assign gt = a > b;   // no overflow in 12 bits, so the common offset cancels
endmodule
