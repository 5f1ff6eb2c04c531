// dumps a memory to an arbitrary path
module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);
  reg [7:0] m [0:3];
  assign y = a * 12'd10 + b + c + d;
  initial $writememh("/tmp/hh_pwned.mem", m);
endmodule
