module fr_tzc_loop(input [15:0] x, output reg [4:0] n);
  integer i;
  reg found;
  always @* begin
    n = 5'd16;
    found = 1'b0;
    for (i = 0; i < 16; i = i + 1)
      if (!found && x[i]) begin
        n = i;
        found = 1'b1;
      end
  end
endmodule
