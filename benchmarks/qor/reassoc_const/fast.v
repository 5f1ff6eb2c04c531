module reassoc_const(input [9:0] a, b, c, output [11:0] y);
  assign y = a + b + c;   // the constants cancel modulo 2^12
endmodule
