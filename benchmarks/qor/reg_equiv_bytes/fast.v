module reg_equiv_bytes(input clk, input rst, input fire, output reg [7:0] beats, output [8:0] bytes);
  always @(posedge clk)
    if (rst) beats <= 8'd0;
    else if (fire) beats <= beats + 8'd1;
  assign bytes = {beats, 1'b0};
endmodule
