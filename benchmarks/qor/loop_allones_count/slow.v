module loop_allones_count(input [15:0] x, output full, output empty);
  integer i;
  reg [4:0] ones;
  always @* begin
    ones = 5'd0;
    for (i = 0; i < 16; i = i + 1)
      ones = ones + x[i];
  end
  assign full = (ones == 5'd16);
  assign empty = (ones == 5'd0);
endmodule
