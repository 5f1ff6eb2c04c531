module odc_zero_invalid(input clk, input rst, input in_v, input [15:0] a, input [15:0] b, output reg out_v, output [15:0] out);
  reg [15:0] r;
  always @(posedge clk) begin
    if (rst) out_v <= 1'b0;
    else out_v <= in_v;
    r <= a - b;
  end
  assign out = out_v ? r : 16'd0;
endmodule
