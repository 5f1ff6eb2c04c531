module cse_sum(input [15:0] a, b, c, d, output [17:0] y1, y2);
  assign y1 = a + c + b;
  assign y2 = b + d + a;
endmodule
