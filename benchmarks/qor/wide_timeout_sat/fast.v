module wide_timeout_sat(input clk, input rst, input kick, output timeout);
  reg [4:0] t;
  always @(posedge clk)
    if (rst || kick) t <= 5'd0;
    else if (t != 5'd20) t <= t + 5'd1;
  assign timeout = (t == 5'd20);
endmodule
