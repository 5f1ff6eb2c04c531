// a zero-delay combinational oscillator: simulated time never advances
module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);
  wire osc;
  assign osc = ~osc;
  assign y = a * 12'd10 + b + c + d + {11'd0, osc & 1'b0};
endmodule
