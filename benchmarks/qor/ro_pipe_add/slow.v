// two-stage registered adder with a valid pipeline: operands zeroed when not valid, every register reset
module ro_pipe_add(input clk, input rst, input in_valid, input [11:0] a, input [11:0] b,
                   output reg out_valid, output [12:0] out_sum);
  reg [11:0] ra, rb;
  reg [12:0] s;
  reg v1;
  always @(posedge clk)
    if (rst) begin
      v1 <= 1'b0;
      out_valid <= 1'b0;
      ra <= 12'd0;
      rb <= 12'd0;
      s <= 13'd0;
    end else begin
      v1 <= in_valid;
      out_valid <= v1;
      ra <= in_valid ? a : 12'd0;
      rb <= in_valid ? b : 12'd0;
      if (v1) s <= ra + rb;
    end
  assign out_sum = out_valid ? s : 13'd0;
endmodule
