// Reference: sort four bytes (ascending, q[0] smallest) and pick one of them by sel.
module sort4 (
  input  logic [1:0] sel,
  input  logic [7:0] d [0:3],
  output logic [7:0] q [0:3],
  output logic [7:0] pick
);
  always_comb begin
    logic [7:0] t;
    for (int i = 0; i < 4; i++) q[i] = d[i];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3 - i; j++) begin
        t = q[j];
        if (q[j] > q[j + 1]) begin
          q[j] = q[j + 1];
          q[j + 1] = t;
        end
      end
  end
  assign pick = d[sel];
endmodule
