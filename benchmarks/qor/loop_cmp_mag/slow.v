module loop_cmp_mag(input [15:0] a, input [15:0] b, output reg lt, output reg eq, output reg gt);
  integer i;
  reg done;
  always @* begin
    lt = 1'b0; gt = 1'b0; done = 1'b0;
    for (i = 15; i >= 0; i = i - 1) begin
      if (!done && (a[i] != b[i])) begin
        done = 1'b1;
        if (a[i]) gt = 1'b1;
        else lt = 1'b1;
      end
    end
    eq = !done;
  end
endmodule
