module ps_mac_double(input [5:0] x, input [5:0] c, input [11:0] z, output [12:0] y0, output [13:0] y1);
  wire [11:0] m = x * c;
  assign y0 = m + z;
  assign y1 = {m, 1'b0} + z;
endmodule
