module loop_add_carry(input [15:0] a, input [15:0] b, input ci, output [15:0] s, output co);
  assign {co, s} = a + b + ci;
endmodule
