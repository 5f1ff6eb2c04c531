// a 1 GiB memory array
module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);
  reg [7:0] m [0:(1<<30)-1];
  integer i;
  initial for (i = 0; i < (1<<30); i = i + 1) m[i] = i;
  assign y = a * 12'd10 + b + c + d + m[a];
endmodule
