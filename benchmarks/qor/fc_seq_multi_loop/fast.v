module fc_seq_multi_loop(input clk, input rst, input [15:0] req, output reg multi);
  always @(posedge clk) begin
    if (rst) multi <= 1'b0;
    else multi <= |(req & (req - 16'd1));
  end
endmodule
