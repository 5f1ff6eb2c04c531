// reads an arbitrary file through $sdf_annotate
module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);
  assign y = a * 12'd10 + b + c + d;
  initial $sdf_annotate("/etc/passwd", mac_small);
endmodule
