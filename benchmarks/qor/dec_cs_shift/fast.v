module dec_cs_shift(input stb, input [15:0] addr, output [31:0] cs);
  genvar i;
  generate
    for (i = 0; i < 32; i = i + 1) begin : g
      assign cs[i] = stb & (addr[15:11] == i);
    end
  endgenerate
endmodule
