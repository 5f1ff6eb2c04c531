module fc_found_any_loop(input [31:0] a, input [7:0] key, output reg y);
  integer i;
  reg found;
  reg [2:0] hits;
  always @* begin
    found = 1'b0;
    hits = 3'd0;
    for (i = 0; i < 4; i = i + 1) begin
      if (!found && a[8*i +: 8] == key) begin
        found = 1'b1;
        hits = hits + 3'd1;
      end
    end
    y = (hits >= 3'd1);
  end
endmodule
