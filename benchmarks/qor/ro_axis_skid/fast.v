// AXI-Stream skid buffer: only the valid flags are reset; data is don't-care while its valid is low
module ro_axis_skid(input clk, input rst,
                    input s_valid, output s_ready, input [15:0] s_data,
                    output m_valid, input m_ready, output [15:0] m_data);
  reg [15:0] main_data, skid_data;
  reg main_valid, skid_valid;
  assign s_ready = !skid_valid;
  assign m_valid = main_valid;
  assign m_data = main_data;
  always @(posedge clk)
    if (rst) begin
      main_valid <= 1'b0;
      skid_valid <= 1'b0;
    end else if (!main_valid || m_ready) begin
      main_valid <= skid_valid || s_valid;
      skid_valid <= 1'b0;
    end else if (s_valid && !skid_valid)
      skid_valid <= 1'b1;
  always @(posedge clk) begin
    if (!skid_valid) skid_data <= s_data;
    if (!main_valid || m_ready) main_data <= skid_valid ? skid_data : s_data;
  end
endmodule
