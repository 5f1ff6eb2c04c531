// rot4 through a submodule in core.sv: its input array is connected from rot4's own array port, its output
// array to an array rot4 declares.
module rot4 (
  input  logic [1:0] sel,
  input  logic [7:0] d [0:3],
  output logic [7:0] q [0:3],
  output logic [7:0] pick
);
  logic [7:0] r [0:3];
  rot_core u (.s(sel), .a(d), .z(r));
  assign q[0] = r[0];
  assign q[1] = r[1];
  assign q[2] = r[2];
  assign q[3] = r[3];
  assign pick = d[sel];
endmodule
