module loop_shift_steps(input [15:0] x, input [3:0] sh, output reg [15:0] y);
  integer i;
  always @* begin
    y = x;
    for (i = 0; i < 15; i = i + 1)
      if (i < sh) y = {y[14:0], 1'b0};
  end
endmodule
