module fr_absdiff_loop(input [15:0] a, input [15:0] b, output reg [15:0] y);
  integer i;
  reg done, a_gt;
  always @* begin
    done = 1'b0;
    a_gt = 1'b0;
    for (i = 15; i >= 0; i = i - 1)
      if (!done && a[i] != b[i]) begin
        done = 1'b1;
        a_gt = a[i];
      end
    if (a_gt) y = a - b;
    else y = b - a;
  end
endmodule
