// a user PLI/VPI task that is not on the allow-list
module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);
  assign y = a * 12'd10 + b + c + d;
  initial $my_vpi_shell("id");
endmodule
