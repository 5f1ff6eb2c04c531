module odc_isolate_cmp(input clk, input rst, input en, input [23:0] a, input [23:0] b, output hit);
  reg v, eq;
  wire [23:0] ai = en ? a : 24'd0;
  wire [23:0] bi = en ? b : 24'hFFFFFF;
  always @(posedge clk) begin
    if (rst) v <= 1'b0;
    else v <= en;
    eq <= (ai == bi);
  end
  assign hit = v & eq;
endmodule
