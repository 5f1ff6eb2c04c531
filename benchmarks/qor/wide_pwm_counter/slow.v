module wide_pwm_counter(input clk, input rst, input [7:0] duty, output pwm);
  reg [31:0] cnt;
  always @(posedge clk)
    if (rst) cnt <= 32'd0;
    else if (cnt >= 32'd254) cnt <= 32'd0;
    else cnt <= cnt + 32'd1;
  assign pwm = (cnt < {24'd0, duty});
endmodule
