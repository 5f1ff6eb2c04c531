module width_counter(input clk, input rst, output tick);
  reg [6:0] cnt;   // 0..99 fits in 7 bits
  always @(posedge clk)
    if (rst) cnt <= 7'd0;
    else if (cnt == 7'd99) cnt <= 7'd0;
    else cnt <= cnt + 7'd1;
  assign tick = cnt == 7'd99;
endmodule
