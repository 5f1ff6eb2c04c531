// one tick every DIV clocks while enabled (the bit clock of the transmitter)
module baud_tick #(parameter DIV = 4) (
  input  wire clk,
  input  wire rst,
  input  wire en,
  output wire tick
);
  reg [2:0] cnt;
  always @(posedge clk)
    if (rst || !en) cnt <= 3'd0;
    else if (cnt == DIV - 1) cnt <= 3'd0;
    else cnt <= cnt + 3'd1;
  assign tick = en && cnt == DIV - 1;
endmodule
