module mult_chain(input [3:0] a, b, c, d, output [15:0] y);
  assign y = (a * b) * (c * d);   // balanced: two levels
endmodule
