module fr_absdiff_loop(input [15:0] a, input [15:0] b, output [15:0] y);
  wire [16:0] d = {1'b0, a} - {1'b0, b};   // one subtractor; its borrow is the comparison
  assign y = d[16] ? -d[15:0] : d[15:0];
endmodule
