// an unbounded generate loop
module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);
  genvar i;
  wire [11:0] t [0:1000000000];
  assign t[0] = a * 12'd10 + b + c + d;
  generate for (i = 0; i < 1000000000; i = i + 1) begin : g
    assign t[i+1] = t[i];
  end endgenerate
  assign y = t[1000000000];
endmodule
