// rot4 again: the instance inside a generate block, `a` connected implicitly (.a) from an array rot4 declares,
// rot_core's output array straight to rot4's own output array port.
module rot4 (
  input  logic [1:0] sel,
  input  logic [7:0] d [0:3],
  output logic [7:0] q [0:3],
  output logic [7:0] pick
);
  wire [1:0] s = sel;
  logic [7:0] a [0:3];
  for (genvar i = 0; i < 4; i++) begin : cp
    assign a[i] = d[i];
  end
  if (1) begin : g
    rot_core u (.s, .a, .z(q));
  end
  assign pick = d[sel];
endmodule
