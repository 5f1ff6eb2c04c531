module share_inc_branches(input [1:0] op, input [15:0] a, input [15:0] b, output reg [15:0] y);
  always @* begin
    case (op)
      2'd0: y = a + b;
      2'd1: y = a + b + 16'd1;
      default: y = a + b + 16'd2;
    endcase
  end
endmodule
