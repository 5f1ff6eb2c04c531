module prio_found_loop(input [15:0] req, output reg [3:0] idx, output reg valid);
  integer i;
  reg found;
  always @* begin
    idx = 4'd0; found = 1'b0;
    for (i = 0; i < 16; i = i + 1) begin
      if (req[i] && !found) begin
        idx = i;
        found = 1'b1;
      end
    end
    valid = found;
  end
endmodule
