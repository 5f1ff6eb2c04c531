// tries to write a file outside its folder
module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);
  integer fd;
  assign y = a * 12'd10 + b + c + d;
  initial begin fd = $fopen("/tmp/hh_pwned_fopen", "w"); $fdisplay(fd, "pwned"); $fclose(fd); end
endmodule
