module prod_next_square(input [5:0] x, output [11:0] s, output [12:0] t);
  wire [6:0] x1 = x + 7'd1;
  assign s = x * x;
  assign t = x1 * x1;
endmodule
