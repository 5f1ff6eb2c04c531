module fc_seq_multi_loop(input clk, input rst, input [15:0] req, output reg multi);
  integer i;
  reg [4:0] cnt;
  always @(posedge clk) begin
    cnt = 5'd0;
    for (i = 0; i < 16; i = i + 1)
      cnt = cnt + req[i];
    if (rst) multi <= 1'b0;
    else multi <= (cnt >= 5'd2);
  end
endmodule
