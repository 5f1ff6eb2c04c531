// A parameterized tap line: an unpacked input array of size form [N], an output array declared [N-1:0].
module taps #(parameter W = 8, N = 4) (
  input  logic clk, rst_n,
  input  logic [W-1:0] din,
  input  logic [W-1:0] coef [N],
  output logic [W-1:0] tap [N-1:0],
  output logic [W+1:0] acc
);
  always_ff @(posedge clk)
    if (!rst_n) for (int i = 0; i < N; i++) tap[i] <= '0;
    else begin
      tap[0] <= din;
      for (int i = 1; i < N; i++) tap[i] <= tap[i - 1];
    end
  always_comb begin
    acc = '0;
    for (int i = 0; i < N; i++) acc = acc + (tap[i] & coef[i]);
  end
endmodule
