module reg_const_errcnt(input clk, input rst, input en, output reg [6:0] cnt, output reg [11:0] err);
  always @(posedge clk)
    if (rst) begin
      cnt <= 7'd0;
      err <= 12'd0;
    end else begin
      if (en) cnt <= (cnt == 7'd99) ? 7'd0 : cnt + 7'd1;
      if (cnt > 7'd100) err <= err + 12'd1;
    end
endmodule
