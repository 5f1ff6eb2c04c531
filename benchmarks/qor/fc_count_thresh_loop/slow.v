module fc_count_thresh_loop(input [15:0] x, output reg y);
  integer i;
  reg [4:0] cnt;
  always @* begin
    cnt = 5'd0;
    for (i = 0; i < 16; i = i + 1)
      if (x[i]) cnt = cnt + 5'd1;
    y = (cnt > 5'd11);
  end
endmodule
