module decoder_shift(input [4:0] sel, output [31:0] y);
  assign y = 32'd1 << sel;
endmodule
