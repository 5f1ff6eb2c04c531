// tries to load /etc/passwd into a memory
module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);
  reg [7:0] m [0:255];
  initial $readmemh("/etc/passwd", m);
  assign y = a * 12'd10 + b + c + d + m[0];
endmodule
