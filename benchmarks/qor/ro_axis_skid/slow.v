// AXI-Stream skid buffer (register slice), written "reset and clear everything"
module ro_axis_skid(input clk, input rst,
                    input s_valid, output s_ready, input [15:0] s_data,
                    output m_valid, input m_ready, output [15:0] m_data);
  reg [15:0] main_data, skid_data;
  reg main_valid, skid_valid;
  assign s_ready = !skid_valid;
  assign m_valid = main_valid;
  assign m_data = main_data;
  always @(posedge clk) begin
    if (rst) begin
      main_valid <= 1'b0;
      skid_valid <= 1'b0;
      main_data <= 16'd0;
      skid_data <= 16'd0;
    end else begin
      if (!main_valid || m_ready) begin
        if (skid_valid) begin
          main_valid <= 1'b1;
          main_data <= skid_data;
          skid_valid <= 1'b0;
          skid_data <= 16'd0;
        end else if (s_valid) begin
          main_valid <= 1'b1;
          main_data <= s_data;
        end else begin
          main_valid <= 1'b0;
          main_data <= 16'd0;
        end
      end else if (s_valid && !skid_valid) begin
        skid_valid <= 1'b1;
        skid_data <= s_data;
      end
    end
  end
endmodule
