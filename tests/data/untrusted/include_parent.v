// includes a file from a parent folder
`include "../x.vh"
module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);
  assign y = a * 12'd10 + b + c + d;
endmodule
