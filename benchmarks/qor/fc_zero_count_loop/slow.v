module fc_zero_count_loop(input [23:0] x, output reg y);
  integer i;
  reg [4:0] zeros;
  always @* begin
    zeros = 5'd0;
    for (i = 0; i < 24; i = i + 1)
      if (!x[i]) zeros = zeros + 5'd1;
    y = (zeros == 5'd0);
  end
endmodule
