module mux_addsub(input sub, input [15:0] a, b, output [15:0] y);
  // one adder: a - b = a + ~b + 1
  assign y = a + (b ^ {16{sub}}) + sub;
endmodule
