module fr_hamming_loop(input [31:0] a, input [31:0] b, output [5:0] hd);
  wire [31:0] x = a ^ b;
  // adder tree over the differing bits: pairs, nibbles, bytes, halves, word
  genvar i;
  wire [1:0] p [0:15];
  wire [2:0] q [0:7];
  wire [3:0] r [0:3];
  wire [4:0] s [0:1];
  generate
    for (i = 0; i < 16; i = i + 1) begin : g2
      assign p[i] = x[2*i] + x[2*i+1];
    end
    for (i = 0; i < 8; i = i + 1) begin : g4
      assign q[i] = p[2*i] + p[2*i+1];
    end
    for (i = 0; i < 4; i = i + 1) begin : g8
      assign r[i] = q[2*i] + q[2*i+1];
    end
    for (i = 0; i < 2; i = i + 1) begin : g16
      assign s[i] = r[2*i] + r[2*i+1];
    end
  endgenerate
  assign hd = s[0] + s[1];
endmodule
