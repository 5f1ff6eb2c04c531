module ps_alu_incdec(input [1:0] op, input [15:0] x, output [15:0] y);
  reg [15:0] k;
  always @(*) begin
    case (op)
      2'd0: k = 16'd1;
      2'd1: k = 16'hffff;
      2'd2: k = 16'd4;
      default: k = 16'hfffd;
    endcase
  end
  assign y = x + k;
endmodule
