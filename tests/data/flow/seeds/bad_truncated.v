// SEED: faulty - the sum is computed in 8 bits and loses the carries
module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);
  wire [7:0] s = a * 8'd10 + b + c + d;
  assign y = s;
endmodule
