// A sorting network of five compare-exchange stages: the same ports, another structure.
module sort4 (
  input  logic [1:0] sel,
  input  logic [7:0] d [0:3],
  output logic [7:0] q [0:3],
  output logic [7:0] pick
);
  function automatic [15:0] cx(input [7:0] a, input [7:0] b);
    cx = a <= b ? {a, b} : {b, a};
  endfunction
  wire [7:0] a0, a1, a2, a3, b0, b1, b2, b3, c1, c2;
  assign {a0, a1} = cx(d[0], d[1]);
  assign {a2, a3} = cx(d[2], d[3]);
  assign {b0, b2} = cx(a0, a2);
  assign {b1, b3} = cx(a1, a3);
  assign {c1, c2} = cx(b1, b2);
  assign q[0] = b0;
  assign q[1] = c1;
  assign q[2] = c2;
  assign q[3] = b3;
  assign pick = sel[1] ? (sel[0] ? d[3] : d[2]) : (sel[0] ? d[1] : d[0]);
endmodule
