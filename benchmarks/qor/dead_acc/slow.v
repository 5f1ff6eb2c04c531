module dead_acc(input clk, input rst, input [15:0] d, output reg [3:0] cnt, output reg [15:0] acc);
  always @(posedge clk)
    if (rst) begin cnt <= 4'd0; acc <= 16'd0; end
    else begin
      cnt <= (cnt == 4'd9) ? 4'd0 : cnt + 4'd1;
      if (cnt == 4'd12) acc <= acc + d;   // unreachable: cnt never exceeds 9
    end
endmodule
