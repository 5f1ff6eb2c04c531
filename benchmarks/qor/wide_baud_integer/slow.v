module wide_baud_integer(input clk, input rst, output tick);
  reg [31:0] cnt;
  always @(posedge clk)
    if (rst) cnt <= 32'd0;
    else if (cnt >= 32'd49) cnt <= 32'd0;
    else cnt <= cnt + 32'd1;
  assign tick = (cnt == 32'd49);
endmodule
