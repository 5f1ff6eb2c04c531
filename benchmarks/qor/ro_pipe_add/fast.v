// two-stage registered adder: only the valid pipeline is reset; data registers load every cycle
module ro_pipe_add(input clk, input rst, input in_valid, input [11:0] a, input [11:0] b,
                   output reg out_valid, output [12:0] out_sum);
  reg [11:0] ra, rb;
  reg [12:0] s;
  reg v1;
  always @(posedge clk)
    if (rst) begin
      v1 <= 1'b0;
      out_valid <= 1'b0;
    end else begin
      v1 <= in_valid;
      out_valid <= v1;
    end
  always @(posedge clk) begin
    ra <= a;
    rb <= b;
    s <= ra + rb;
  end
  assign out_sum = out_valid ? s : 13'd0;
endmodule
