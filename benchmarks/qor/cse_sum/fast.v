module cse_sum(input [15:0] a, b, c, d, output [17:0] y1, y2);
  wire [17:0] ab = a + b;
  assign y1 = ab + c;
  assign y2 = ab + d;
endmodule
