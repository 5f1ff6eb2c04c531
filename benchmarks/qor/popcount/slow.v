module popcount(input [15:0] x, output [4:0] n);
  integer i, cnt;
  always @* begin
    cnt = 0;
    for (i = 0; i < 16; i = i + 1)
      if (x[i]) cnt = cnt + 1;
  end
  assign n = cnt;
endmodule
