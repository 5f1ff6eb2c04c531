module fc_onehot_loop(input [15:0] x, output y);
  assign y = (x != 16'd0) && ((x & (x - 16'd1)) == 16'd0);
endmodule
