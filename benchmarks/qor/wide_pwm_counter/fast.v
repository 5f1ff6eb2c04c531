module wide_pwm_counter(input clk, input rst, input [7:0] duty, output pwm);
  reg [7:0] cnt;
  always @(posedge clk)
    if (rst) cnt <= 8'd0;
    else if (cnt == 8'd254) cnt <= 8'd0;
    else cnt <= cnt + 8'd1;
  assign pwm = (cnt < duty);
endmodule
