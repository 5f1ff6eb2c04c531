module ps_sub_common(input [1:0] sel, input [15:0] a, b, c, d, e, output reg [15:0] y);
  always @(*) begin
    case (sel)
      2'd0: y = a - b;
      2'd1: y = c - b;
      2'd2: y = d - b;
      default: y = e - b;
    endcase
  end
endmodule
