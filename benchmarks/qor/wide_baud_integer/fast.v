module wide_baud_integer(input clk, input rst, output tick);
  reg [5:0] cnt;
  always @(posedge clk)
    if (rst) cnt <= 6'd0;
    else if (cnt == 6'd49) cnt <= 6'd0;
    else cnt <= cnt + 6'd1;
  assign tick = (cnt == 6'd49);
endmodule
