module loop_allones_count(input [15:0] x, output full, output empty);
  assign full = &x;
  assign empty = ~|x;
endmodule
