module reg_equiv_bytes(input clk, input rst, input fire, output reg [7:0] beats, output reg [8:0] bytes);
  always @(posedge clk)
    if (rst) begin
      beats <= 8'd0;
      bytes <= 9'd0;
    end else if (fire) begin
      beats <= beats + 8'd1;
      bytes <= bytes + 9'd2;
    end
endmodule
