module loop_shift_steps(input [15:0] x, input [3:0] sh, output [15:0] y);
  assign y = x << sh;
endmodule
