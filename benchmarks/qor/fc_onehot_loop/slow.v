module fc_onehot_loop(input [15:0] x, output reg y);
  integer i;
  reg [4:0] cnt;
  always @* begin
    cnt = 5'd0;
    for (i = 0; i < 16; i = i + 1)
      cnt = cnt + x[i];
    y = (cnt == 5'd1);
  end
endmodule
