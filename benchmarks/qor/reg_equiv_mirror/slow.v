module reg_equiv_mirror(input clk, input rst, input en, output [7:0] a_cnt, output [7:0] b_cnt, output same);
  reg [7:0] up, down;
  always @(posedge clk)
    if (rst) up <= 8'd0;
    else if (en) up <= up + 8'd1;
  always @(posedge clk)
    if (rst) down <= 8'hFF;
    else if (en) down <= down - 8'd1;
  assign a_cnt = up;
  assign b_cnt = ~down;
  assign same = (up == ~down);
endmodule
