module dead_acc(input clk, input rst, input [15:0] d, output reg [3:0] cnt, output [15:0] acc);
  always @(posedge clk)
    if (rst) cnt <= 4'd0;
    else cnt <= (cnt == 4'd9) ? 4'd0 : cnt + 4'd1;
  assign acc = 16'd0;
endmodule
