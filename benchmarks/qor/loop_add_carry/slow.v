module loop_add_carry(input [15:0] a, input [15:0] b, input ci, output reg [15:0] s, output reg co);
  integer i;
  reg c;
  always @* begin
    c = ci;
    for (i = 0; i < 16; i = i + 1) begin
      s[i] = a[i] ^ b[i] ^ c;
      c = (a[i] & b[i]) | (a[i] & c) | (b[i] & c);
    end
    co = c;
  end
endmodule
