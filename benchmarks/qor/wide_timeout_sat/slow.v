module wide_timeout_sat(input clk, input rst, input kick, output timeout);
  reg [31:0] t;
  always @(posedge clk)
    if (rst || kick) t <= 32'd0;
    else if (t < 32'd20) t <= t + 32'd1;
  assign timeout = (t == 32'd20);
endmodule
