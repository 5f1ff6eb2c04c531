module loop_mul_shiftadd(input [7:0] a, input [7:0] b, output [15:0] p);
  assign p = a * b;
endmodule
