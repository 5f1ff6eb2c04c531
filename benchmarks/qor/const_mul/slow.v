module const_mul(input [11:0] x, output [19:0] y);
  assign y = x * 20'd231;
endmodule
