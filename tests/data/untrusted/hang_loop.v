// simulation never advances: a zero-delay loop in a combinational block
module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);
  reg [11:0] r;
  integer i;
  always @* begin
    r = a * 12'd10 + b + c + d;
    i = 0;
    while (i >= 0) i = i + 1 - 1;
  end
  assign y = r;
endmodule
