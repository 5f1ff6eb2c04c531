module prod_next_square(input [5:0] x, output [11:0] s, output [12:0] t);
  wire [11:0] sq = x * x;
  assign s = sq;
  assign t = sq + {x, 1'b1};
endmodule
