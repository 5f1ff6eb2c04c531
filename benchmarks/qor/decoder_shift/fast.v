module decoder_shift(input [4:0] sel, output [31:0] y);
  genvar i;
  generate for (i = 0; i < 32; i = i + 1) begin : g
    assign y[i] = (sel == i);
  end endgenerate
endmodule
