// functionally correct, but synthesis unrolls 200000 multipliers
module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);
  reg [15:0] t;
  integer i;
  always @* begin
    t = 16'd0;
    for (i = 0; i < 200000; i = i + 1) t = t ^ (a * b);
  end
  assign y = a * 12'd10 + b + c + d + (t ^ t);
endmodule
