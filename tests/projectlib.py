"""A small multi-file RTL project as a user brings it: a SystemVerilog package, a submodule in another
file, a header found through an include folder, a define the RTL cannot compile without, a filelist.

``make_project(root)`` writes it and returns the filelist; ``broken`` variants help error tests."""

from __future__ import annotations

from pathlib import Path

PKG = """package acc_pkg;
  parameter W = 8;
  function automatic [W-1:0] mix(input [W-1:0] a, input [W-1:0] b);
    mix = a ^ {b[W-2:0], b[W-1]};
  endfunction
endpackage
"""

HEADER = """`define ACC_RESET_VALUE 8'h5a
"""

SUB = """module acc_stage (
  input  logic         clk,
  input  logic         rst_n,
  input  logic         en,
  input  logic [acc_pkg::W-1:0] d,
  output logic [acc_pkg::W-1:0] q
);
`include "acc_defs.svh"
  always_ff @(posedge clk or negedge rst_n)
    if (!rst_n) q <= `ACC_RESET_VALUE;
    else if (en) q <= acc_pkg::mix(q, d);
endmodule
"""

# without +define+HH_PROJECT_MODE the top does not compile: the define must reach every tool
TOP = """module acc_top (
  input  logic         clk,
  input  logic         rst_n,
  input  logic         en,
  input  logic [acc_pkg::W-1:0] din,
  output logic [acc_pkg::W-1:0] acc,
  output logic         parity
);
`ifndef HH_PROJECT_MODE
  this_line_does_not_compile_without_the_define;
`endif
  acc_stage u_stage (.clk(clk), .rst_n(rst_n), .en(en), .d(din), .q(acc));
  assign parity = ^acc;
endmodule
"""

FILELIST = """// the project's filelist, as a simulator takes it
+incdir+include
+define+HH_PROJECT_MODE=1
rtl/acc_top.sv
rtl/sub/acc_stage.sv
pkg/acc_pkg.sv
"""


def make_project(root: Path) -> Path:
    """Write the project under ``root``; the package comes last in the filelist on purpose."""
    files = {"pkg/acc_pkg.sv": PKG, "include/acc_defs.svh": HEADER, "rtl/sub/acc_stage.sv": SUB,
             "rtl/acc_top.sv": TOP, "rtl.f": FILELIST}
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root / "rtl.f"
