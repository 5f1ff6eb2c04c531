module fr_hamming_loop(input [31:0] a, input [31:0] b, output reg [5:0] hd);
  integer i;
  always @* begin
    hd = 6'd0;
    for (i = 0; i < 32; i = i + 1)
      if (a[i] != b[i]) hd = hd + 6'd1;
  end
endmodule
