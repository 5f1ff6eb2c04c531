module prio_lzc_loop(input [15:0] x, output reg [4:0] lz);
  integer i;
  reg found;
  always @* begin
    lz = 5'd16; found = 1'b0;
    for (i = 15; i >= 0; i = i - 1) begin
      if (x[i] && !found) begin
        lz = 15 - i;
        found = 1'b1;
      end
    end
  end
endmodule
