module loop_cmp_mag(input [15:0] a, input [15:0] b, output lt, output eq, output gt);
  assign lt = a < b;
  assign eq = a == b;
  assign gt = b < a;
endmodule
