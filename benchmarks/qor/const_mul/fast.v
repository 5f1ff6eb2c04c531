module const_mul(input [11:0] x, output [19:0] y);
  // 231 = 256 - 32 + 8 - 1 (canonical signed digits)
  assign y = ({8'd0, x} << 8) - ({8'd0, x} << 5) + ({8'd0, x} << 3) - {8'd0, x};
endmodule
