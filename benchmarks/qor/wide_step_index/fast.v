module wide_step_index(input clk, input rst, input adv, output [2:0] step, output last);
  reg [2:0] idx;
  always @(posedge clk)
    if (rst) idx <= 3'd0;
    else if (adv) idx <= (idx == 3'd5) ? 3'd0 : idx + 3'd1;
  assign step = idx;
  assign last = (idx == 3'd5);
endmodule
