module rst_shift_pipe(input clk, input rst, input v, input [15:0] d, output q_valid, output [15:0] q);
  reg [15:0] s0, s1, s2;
  reg v0, v1, v2;
  always @(posedge clk) begin
    if (rst) begin
      v0 <= 1'b0; v1 <= 1'b0; v2 <= 1'b0;
    end else begin
      v0 <= v; v1 <= v0; v2 <= v1;
    end
    s0 <= d; s1 <= s0; s2 <= s1;
  end
  assign q_valid = v2;
  assign q = v2 ? s2 : 16'd0;
endmodule
