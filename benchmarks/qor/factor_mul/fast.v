module factor_mul(input [4:0] a, b, c, output [10:0] y);
  assign y = a * (b + c);   // b + c is 6 bits in the 11-bit context: exact
endmodule
