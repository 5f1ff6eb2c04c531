module reg_busy_equiv(input clk, input rst, input go, output reg [3:0] beat, output busy, output last);
  assign busy = |beat;
  always @(posedge clk)
    if (rst) beat <= 4'd0;
    else if (beat == 4'd10) beat <= 4'd0;
    else if (busy || go) beat <= beat + 4'd1;
  assign last = (beat == 4'd10);
endmodule
