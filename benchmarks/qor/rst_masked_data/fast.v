module rst_masked_data(input clk, input rst, input in_valid, input [31:0] in_data, output reg out_valid, output [31:0] out_data);
  reg [31:0] data_q;
  always @(posedge clk) begin
    if (rst) out_valid <= 1'b0;
    else out_valid <= in_valid;
    data_q <= in_data;
  end
  assign out_data = out_valid ? data_q : 32'd0;
endmodule
