module square_to_table(input [4:0] x, output [9:0] y);
  assign y = x * x;
endmodule
