// tries to read /etc/passwd
module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);
  integer fd, ch;
  assign y = a * 12'd10 + b + c + d;
  initial begin fd = $fopen("/etc/passwd", "r"); ch = $fgetc(fd); end
endmodule
