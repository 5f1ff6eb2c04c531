// Reference: rotate four bytes by sel and add each one's position (q[i] = d[(i+sel)%4] + i); pick = d[sel].
module rot4 (
  input  logic [1:0] sel,
  input  logic [7:0] d [0:3],
  output logic [7:0] q [0:3],
  output logic [7:0] pick
);
  always_comb
    for (int i = 0; i < 4; i++) q[i] = d[(i + sel) & 3] + i;
  assign pick = d[sel];
endmodule
