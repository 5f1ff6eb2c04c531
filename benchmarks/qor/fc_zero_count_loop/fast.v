module fc_zero_count_loop(input [23:0] x, output y);
  assign y = &x;
endmodule
