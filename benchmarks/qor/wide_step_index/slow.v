module wide_step_index(input clk, input rst, input adv, output [2:0] step, output last);
  integer idx;
  always @(posedge clk)
    if (rst) idx <= 0;
    else if (adv) begin
      if (idx == 5) idx <= 0;
      else idx <= idx + 1;
    end
  assign step = idx[2:0];
  assign last = (idx == 5);
endmodule
