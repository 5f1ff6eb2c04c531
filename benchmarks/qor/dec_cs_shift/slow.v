module dec_cs_shift(input stb, input [15:0] addr, output [31:0] cs);
  wire [31:0] onehot = 32'd1 << addr[15:11];
  assign cs = stb ? onehot : 32'd0;
endmodule
