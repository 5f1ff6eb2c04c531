module ps_alu_incdec(input [1:0] op, input [15:0] x, output reg [15:0] y);
  always @(*) begin
    case (op)
      2'd0: y = x + 16'd1;
      2'd1: y = x - 16'd1;
      2'd2: y = x + 16'd4;
      default: y = x - 16'd3;
    endcase
  end
endmodule
