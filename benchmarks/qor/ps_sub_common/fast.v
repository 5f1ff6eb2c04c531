module ps_sub_common(input [1:0] sel, input [15:0] a, b, c, d, e, output [15:0] y);
  reg [15:0] s;
  always @(*) begin
    case (sel)
      2'd0: s = a;
      2'd1: s = c;
      2'd2: s = d;
      default: s = e;
    endcase
  end
  assign y = s - b;
endmodule
