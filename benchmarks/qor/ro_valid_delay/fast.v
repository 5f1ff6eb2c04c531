// four-stage delay line: only the valid chain is reset; the data stages shift freely
module ro_valid_delay(input clk, input rst, input in_valid, input [11:0] in_data,
                      output out_valid, output [11:0] out_data);
  reg [11:0] d1, d2, d3, d4;
  reg v1, v2, v3, v4;
  always @(posedge clk)
    if (rst) begin
      v1 <= 1'b0; v2 <= 1'b0; v3 <= 1'b0; v4 <= 1'b0;
    end else begin
      v1 <= in_valid; v2 <= v1; v3 <= v2; v4 <= v3;
    end
  always @(posedge clk) begin
    d1 <= in_data; d2 <= d1; d3 <= d2; d4 <= d3;
  end
  assign out_valid = v4;
  assign out_data = v4 ? d4 : 12'd0;
endmodule
