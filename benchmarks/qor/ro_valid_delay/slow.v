// four-stage delay line with a valid chain; every stage reset and loaded only under its valid
module ro_valid_delay(input clk, input rst, input in_valid, input [11:0] in_data,
                      output out_valid, output [11:0] out_data);
  reg [11:0] d1, d2, d3, d4;
  reg v1, v2, v3, v4;
  always @(posedge clk)
    if (rst) begin
      v1 <= 1'b0; v2 <= 1'b0; v3 <= 1'b0; v4 <= 1'b0;
      d1 <= 12'd0; d2 <= 12'd0; d3 <= 12'd0; d4 <= 12'd0;
    end else begin
      v1 <= in_valid; v2 <= v1; v3 <= v2; v4 <= v3;
      if (in_valid) d1 <= in_data;
      if (v1) d2 <= d1;
      if (v2) d3 <= d2;
      if (v3) d4 <= d3;
    end
  assign out_valid = v4;
  assign out_data = v4 ? d4 : 12'd0;
endmodule
