module ps_mac_double(input [5:0] x, input [5:0] c, input [11:0] z, output [12:0] y0, output [13:0] y1);
  assign y0 = x * c + z;
  assign y1 = x * (c << 1) + z;
endmodule
