module mux_addsub(input sub, input [15:0] a, b, output [15:0] y);
  assign y = sub ? a - b : a + b;
endmodule
