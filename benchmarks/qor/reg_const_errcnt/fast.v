module reg_const_errcnt(input clk, input rst, input en, output reg [6:0] cnt, output [11:0] err);
  always @(posedge clk)
    if (rst) cnt <= 7'd0;
    else if (en) cnt <= (cnt == 7'd99) ? 7'd0 : cnt + 7'd1;
  assign err = 12'd0;
endmodule
