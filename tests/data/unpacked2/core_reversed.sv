// The same body with a declared [0:3] by mistake: a[0] is now the first element, so every element is read mirrored.
module rot_core (
  input  logic [1:0] s,
  input  logic [7:0] a [0:3],
  output logic [7:0] z [4]
);
  always_comb
    for (int k = 0; k < 4; k++) z[k] = a[3 - ((k + s) & 3)] + k;
endmodule
