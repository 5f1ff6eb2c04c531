"""The netlist_sim stage: the synthesized netlist simulated beside the design's own RTL (real tools).

The two divergent designs of issue 28 each pass the RTL checks they are meant to slip past (shown
below with the stage switched off) and are refused by netlist_sim with the first differing cycle and
output. The gate runs are restricted to synthesis and netlist_sim (``only``) so that these tests pin
this stage, whatever the structure gate's own mismatch rules refuse earlier.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import DesignConfig, load_design
from hyperheurist.estimate import estimate
from hyperheurist.gating import run_gates
from hyperheurist.ppa.synth import SynthesisRejected
from hyperheurist.recipe import Recipe
from hyperheurist.sim.difftb import TbPort
from hyperheurist.sim.netbench import generic_cells, port_wrapper

pytestmark = pytest.mark.tools

HONEST = """module top(input clk, input rst, input [3:0] a, input [3:0] b, output reg [4:0] y);
  always @(posedge clk) if (rst) y <= 0; else y <= a + b;
endmodule
"""
# `===` against x is never true in Icarus for driven values; Yosys folds it to true: nxt is always 0
X_COMPARE = """module top(input clk, input rst, input [3:0] a, input [3:0] b, output reg [4:0] y);
  reg [4:0] nxt;
  always @* begin
    nxt = a + b;
    if (nxt === 5'bx) nxt = 0;
  end
  always @(posedge clk) if (rst) y <= 0; else y <= nxt;
endmodule
"""
COMB_REF = """module top(input [3:0] a, input [3:0] b, output [4:0] y);
  assign y = a + b;
endmodule
"""
# Icarus re-evaluates only when `a` changes; Yosys builds the full function (ABC proves it equal to a + b)
SENSITIVITY = """module top(input [3:0] a, input [3:0] b, output reg [4:0] y);
  always @(a) y = a + b;
endmodule
"""
# two modules: without flattening the liberty netlist keeps the hierarchy and splits ports bit by bit
HIER = """module add4(input [3:0] a, input [3:0] b, output [4:0] s);
  assign s = a + b;
endmodule
module top(input clk, input rst, input [3:0] a, input [3:0] b, output reg [4:0] y);
  wire [4:0] s;
  add4 u (.a(a), .b(b), .s(s));
  always @(posedge clk) if (rst) y <= 0; else y <= s;
endmodule
"""
SEQ_YAML = """name: nsdemo
top: top
spec: spec.md
interface:
  clock: clk
  reset: {name: rst, active: high}
  ports:
    - {name: a, dir: input, width: 4}
    - {name: b, dir: input, width: 4}
    - {name: y, dir: output, width: 5}
verification:
  reference: golden.v
ppa:
  liberty: osu018
  clock_period_ns: 5.0
"""
# the equivalence-only gate: no differential simulation, a formal proof against the reference
COMB_YAML = """name: nscomb
top: top
spec: spec.md
interface:
  ports:
    - {name: a, dir: input, width: 4}
    - {name: b, dir: input, width: 4}
    - {name: y, dir: output, width: 5}
verification:
  reference: golden.v
  differential: {enabled: false}
  equivalence: {enabled: true}
ppa:
  liberty: osu018
  clock_period_ns: 5.0
"""
ONLY = ("synthesis", "netlist_sim")


def _project(tmp_path: Path, yaml: str, golden: str, rtl: dict[str, str]) -> Path:
    d = tmp_path / "proj"
    d.mkdir()
    (d / "spec.md").write_text("a 4-bit adder\n")
    (d / "golden.v").write_text(golden)
    for name, text in rtl.items():
        (d / name).write_text(text)
    (d / "design.yaml").write_text(yaml)
    return d


def _hh(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hyperheurist", *args], capture_output=True, text=True, timeout=300)


def _cand(d: Path, name: str, design: DesignConfig) -> Candidate:
    return Candidate.from_paths([d / name], top=design.top)


def test_x_comparison_is_refused_with_the_first_differing_cycle_and_output(tmp_path: Path) -> None:
    """Today's other gates pass it (measured: ``hh gate`` with the stage off, exit 0, every gate PASS); it is
    refused (exit 1) by netlist_sim, and only by it (the same run with the stage off: exit 0)."""
    d = _project(tmp_path, SEQ_YAML, HONEST, {"x.v": X_COMPARE})
    off = _hh("gate", str(d / "design.yaml"), str(d / "x.v"), *(f"--only={g}" for g in ONLY),
              "--set", "verification.netlist_sim.enabled=false")
    assert off.returncode == 0, off.stdout + off.stderr
    res = _hh("gate", str(d / "design.yaml"), str(d / "x.v"), *(f"--only={g}" for g in ONLY))
    assert res.returncode == 1, res.stdout + res.stderr
    assert "INVALID: netlist_sim gate: netlist simulation: cycle " in res.stderr
    assert "output `y` is 5'h" in res.stderr and "in the synthesized netlist" in res.stderr


def test_x_comparison_is_refused_on_the_scored_netlist(tmp_path: Path) -> None:
    """``hh ppa``, an evaluation: the liberty netlist with the OSU cell models, refused before it is scored."""
    d = _project(tmp_path, SEQ_YAML, HONEST, {"x.v": X_COMPARE, "ok.v": HONEST})
    design = load_design(d / "design.yaml")
    ok = estimate(_cand(d, "ok.v", design), design, Recipe(), tmp_path / "ok")
    assert ok.cells > 10
    with pytest.raises(SynthesisRejected, match=r"netlist_sim stage: netlist simulation: cycle \d+: output `y`"):
        estimate(_cand(d, "x.v", design), design, Recipe(), tmp_path / "x")


def test_incomplete_sensitivity_list_is_refused(tmp_path: Path) -> None:
    """The equivalence-only gate proves ``always @(a) y = a + b`` (Yosys ignores sensitivity lists); the
    netlist, which computes a + b, differs from what the RTL simulates when only ``b`` changes."""
    d = _project(tmp_path, COMB_YAML, COMB_REF, {"sens.v": SENSITIVITY})
    design = load_design(d / "design.yaml")
    proven = run_gates(_cand(d, "sens.v", design), design, tmp_path / "eq", only=("equivalence",))
    assert proven.passed and proven.results[-1].details.get("verdict") == "proven", proven.to_dict()
    rep = run_gates(_cand(d, "sens.v", design), design, tmp_path / "ns", only=ONLY)
    assert rep.failed is not None and rep.failed.gate == "netlist_sim", rep.to_dict()
    mism = rep.failed.details["mismatch"]
    assert mism["port"] == "y" and mism["cycle"] >= 0 and mism["rtl"] != mism["netlist"]


def test_honest_designs_pass_and_the_switch_skips_the_stage(tmp_path: Path) -> None:
    d = _project(tmp_path, COMB_YAML, COMB_REF, {"ok.v": COMB_REF})
    design = load_design(d / "design.yaml")
    rep = run_gates(_cand(d, "ok.v", design), design, tmp_path / "on", only=ONLY)
    assert rep.passed, rep.to_dict()
    ns = rep.results[-1]
    assert not ns.skipped and ns.details["cycles"] == design.verification.differential.cycles
    off = load_design(d / "design.yaml", {"verification.netlist_sim.enabled": False,
                                          "verification.netlist_sim.cycles": 7})
    rep = run_gates(_cand(d, "ok.v", off), off, tmp_path / "off", only=ONLY)
    assert rep.passed and rep.results[-1].skipped


def test_cycles_key_bounds_the_bench(tmp_path: Path) -> None:
    d = _project(tmp_path, SEQ_YAML, HONEST, {"ok.v": HONEST})
    design = load_design(d / "design.yaml", {"verification.netlist_sim.cycles": 25})
    rep = run_gates(_cand(d, "ok.v", design), design, tmp_path / "w", only=ONLY)
    assert rep.passed and rep.results[-1].details["cycles"] == 25


def test_hierarchical_netlist_with_split_ports_is_wrapped(tmp_path: Path) -> None:
    """``flatten: false`` keeps ``add4`` and splits its ports per bit; the bench reaches them through a wrapper."""
    d = _project(tmp_path, SEQ_YAML, HONEST, {"h.v": HIER})
    design = load_design(d / "design.yaml")
    m = estimate(_cand(d, "h.v", design), design, Recipe().with_(flatten=False), tmp_path / "h")
    assert m.cells > 10
    assert "module top(clk, rst, \\a[0] ," in (tmp_path / "h" / "02-synthesis" / "netlist.v").read_text()
    assert (tmp_path / "h" / "03-netlist_sim" / "hh_netlist_wrap.v").is_file()


def test_port_wrapper_and_generic_cell_models() -> None:
    ports = [TbPort("a", "input", 2), TbPort("y", "output", 1)]
    text = port_wrapper(ports, "top", {"a"})
    assert ".\\a[0] (a[0]), .\\a[1] (a[1]), .y(y)" in text and "input [1:0] a;" in text
    assert generic_cells("assign y = a & b;\n", None) == []
    share = Path("/share")
    assert generic_cells("  \\$_DFF_P_ _1_ (.C(clk));\n", share) == [share / "simcells.v"]
    word_level = generic_cells("  \\$and #(.A_WIDTH(1)) _2_ (.A(a));\n", share)
    assert word_level == [share / "simcells.v", share / "simlib.v"]
    with pytest.raises(FileNotFoundError):
        generic_cells("  \\$_DFF_P_ _1_ (.C(clk));\n", None)


def test_cocotb_tests_run_on_the_netlist_in_hh_gate(tmp_path: Path) -> None:
    """``cocotb: gate`` (default): the design's cocotb module runs on the generic netlist too; ``never`` skips it."""
    data = Path(__file__).parent / "data" / "gates" / "alu"
    design = load_design(data / "design.yaml")
    cand = Candidate.from_paths([data / "good.v"], top=design.top)
    rep = run_gates(cand, design, tmp_path / "gate", only=ONLY)
    assert rep.passed, rep.to_dict()
    assert rep.results[-1].details["cocotb"]["tests"] >= 1 and "passes cocotb" in rep.results[-1].message
    never = load_design(data / "design.yaml", {"verification.netlist_sim.cocotb": "never"})
    rep = run_gates(cand, never, tmp_path / "never", only=ONLY)
    assert rep.passed and "cocotb" not in rep.results[-1].details
