module factor_mul(input [4:0] a, b, c, output [10:0] y);
  assign y = a * b + a * c;
endmodule
