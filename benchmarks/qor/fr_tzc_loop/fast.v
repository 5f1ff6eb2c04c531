module fr_tzc_loop(input [15:0] x, output [4:0] n);
  // binary search: is the low half empty? then look in the high half
  wire z8 = ~|x[7:0];
  wire [7:0] x8 = z8 ? x[15:8] : x[7:0];
  wire z4 = ~|x8[3:0];
  wire [3:0] x4 = z4 ? x8[7:4] : x8[3:0];
  wire z2 = ~|x4[1:0];
  wire [1:0] x2 = z2 ? x4[3:2] : x4[1:0];
  wire z1 = ~x2[0];
  assign n = (x == 16'd0) ? 5'd16 : {1'b0, z8, z4, z2, z1};
endmodule
