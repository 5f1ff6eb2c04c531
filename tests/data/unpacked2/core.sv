// a is declared [3:0]: its first element, a[3], is the first element of the array connected to it.
module rot_core (
  input  logic [1:0] s,
  input  logic [7:0] a [3:0],
  output logic [7:0] z [4]
);
  always_comb
    for (int k = 0; k < 4; k++) z[k] = a[3 - ((k + s) & 3)] + k;
endmodule
