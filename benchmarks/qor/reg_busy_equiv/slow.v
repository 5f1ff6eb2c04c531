module reg_busy_equiv(input clk, input rst, input go, output reg [3:0] beat, output reg busy, output last);
  always @(posedge clk)
    if (rst) begin
      beat <= 4'd0;
      busy <= 1'b0;
    end else if (!busy) begin
      if (go) begin
        beat <= 4'd1;
        busy <= 1'b1;
      end
    end else begin
      if (beat == 4'd10) begin
        beat <= 4'd0;
        busy <= 1'b0;
      end else begin
        beat <= beat + 4'd1;
      end
    end
  assign last = busy && (beat == 4'd10);
endmodule
