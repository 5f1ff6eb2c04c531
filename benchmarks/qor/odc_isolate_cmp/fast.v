module odc_isolate_cmp(input clk, input rst, input en, input [23:0] a, input [23:0] b, output hit);
  reg v, eq;
  always @(posedge clk) begin
    if (rst) v <= 1'b0;
    else v <= en;
    eq <= (a == b);
  end
  assign hit = v & eq;
endmodule
