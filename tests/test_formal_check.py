"""The one equivalence check (``formal.check``) both callers run: its crash rule and its one Yosys run.

Crashes use the fake tools (``tests/fake_tools``: a chosen tool dies on SIGSEGV); the start-value tying
script and the proofs use the real Yosys.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_tools import FakeTools, install

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.formal.inits import MITER_WRITTEN, TIE_SCRIPT, TIE_TCL
from hyperheurist.gating import run_gates
from hyperheurist.rewrite.interface import module_interface
from hyperheurist.rewrite.prove import ProofTask, prove_rewrite
from hyperheurist.runner import run_tool
from hyperheurist.stages.model import StageResult

GATES = Path(__file__).parent / "data" / "gates"
MITER_RUN = "write_rtlil hh_hier.il"  # only the miter's Yosys script has this line
ADDER = "module t(input [3:0] a, b, output [4:0] y);\n  assign y = a + b;\nendmodule\n"


@pytest.fixture
def fakes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTools:
    return install(tmp_path, monkeypatch)


def _equivalence(tmp_path: Path) -> StageResult:
    d = load_design(GATES / "alu" / "design.yaml")
    cand = Candidate.from_paths([GATES / "alu" / "good.v"], top=d.top)
    rep = run_gates(cand, d, tmp_path / "work")
    return next(r for r in rep.results if r.gate == "equivalence")


def test_a_miter_crash_is_inconclusive_not_an_infrastructure_fault(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("yosys", match=MITER_RUN, signal=11, outputs=False)
    eq = _equivalence(tmp_path)
    assert not eq.passed and eq.details["verdict"] == "inconclusive"
    assert "cannot build the miter: yosys-miter crashed (SIGSEGV)" in eq.message, eq.message


def test_a_crash_after_the_miter_is_written_falls_back_to_the_sat_engine(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("yosys", match=MITER_RUN, signal=11, stdout=MITER_WRITTEN + "\n")
    eq = _equivalence(tmp_path)
    assert eq.details["verdict"] == "proven", eq.message  # the fake SAT says SUCCESS
    assert "yosys sat -enable_undef (no AIGER: yosys-miter crashed (SIGSEGV))" in eq.details["engine"]


def test_an_abc_crash_is_inconclusive(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("yosys-abc", signal=11, outputs=False)
    eq = _equivalence(tmp_path)
    assert eq.details["verdict"] == "inconclusive" and "abc-cec crashed (SIGSEGV)" in eq.message, eq.message


def test_a_rewrite_proof_follows_the_same_crash_rule(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("yosys", match=MITER_RUN, signal=11, outputs=False)
    v = prove_rewrite(ProofTask(ADDER, ADDER, "t", module_interface(ADDER, "t")), tmp_path / "proof")
    assert v.kind == "inconclusive" and "yosys-miter crashed (SIGSEGV)" in v.reason, v.reason


FLAT = """module \\hh_miter
  wire width 4 \\hh_gold.r
  wire width 4 \\hh_gate.r
  wire width 2 \\hh_gold.s
  wire width 3 \\hh_gate.s
  attribute \\init 4'0000
  wire width 4 \\hh_gold.q
  wire width 4 \\hh_gate.q
  wire width 4 input 2 \\d
  wire width 2 input 3 \\d2
  wire width 3 input 4 \\d3
  wire input 1 \\clk
  cell $dff \\gr
    parameter \\WIDTH 4
    parameter \\CLK_POLARITY 1
    connect \\CLK \\clk
    connect \\D \\d
    connect \\Q \\hh_gold.r
  end
  cell $dff \\dr
    parameter \\WIDTH 4
    parameter \\CLK_POLARITY 1
    connect \\CLK \\clk
    connect \\D \\d
    connect \\Q \\hh_gate.r
  end
  cell $dff \\gs
    parameter \\WIDTH 2
    parameter \\CLK_POLARITY 1
    connect \\CLK \\clk
    connect \\D \\d2
    connect \\Q \\hh_gold.s
  end
  cell $dff \\ds
    parameter \\WIDTH 3
    parameter \\CLK_POLARITY 1
    connect \\CLK \\clk
    connect \\D \\d3
    connect \\Q \\hh_gate.s
  end
  cell $dff \\gq
    parameter \\WIDTH 4
    parameter \\CLK_POLARITY 1
    connect \\CLK \\clk
    connect \\D \\d
    connect \\Q \\hh_gold.q
  end
  cell $dff \\dq
    parameter \\WIDTH 4
    parameter \\CLK_POLARITY 1
    connect \\CLK \\clk
    connect \\D \\d
    connect \\Q \\hh_gate.q
  end
end
"""


@pytest.mark.tools
def test_tie_script_shares_the_first_value_of_same_named_free_registers_only(tmp_path: Path) -> None:
    """r is tied (same name and width, both free); s is not (widths differ), nor q (the golden's has an init)."""
    (tmp_path / "flat.il").write_text(FLAT, encoding="utf-8")
    (tmp_path / TIE_SCRIPT).write_text(TIE_TCL, encoding="utf-8")
    res = run_tool(["yosys", "-q", "-p", f"tcl {TIE_SCRIPT} flat.il tied.il; read_rtlil tied.il; check -assert"],
                   name="tie", log_dir=tmp_path, timeout_s=60, cwd=tmp_path)
    assert res.ok, res.stdout + res.stderr
    assert MITER_WRITTEN in res.stdout
    tied = (tmp_path / "tied.il").read_text(encoding="utf-8")
    assert tied.count("cell $mux") == 2 and tied.count("cell $anyseq") == 1 and tied.count("cell $initstate") == 1
    assert "connect \\Q \\hh_tie_rawg0" in tied and "connect \\Q \\hh_tie_rawd0" in tied
    assert "connect \\Y \\hh_gold.r" in tied and "connect \\Y \\hh_gate.r" in tied
    for kept in ("connect \\Q \\hh_gold.s", "connect \\Q \\hh_gate.s", "connect \\Q \\hh_gold.q",
                 "connect \\Q \\hh_gate.q"):
        assert kept in tied


@pytest.mark.tools
def test_tie_script_copies_a_miter_without_pairs_unchanged(tmp_path: Path) -> None:
    flat = FLAT.replace("\\hh_gate.r", "\\hh_gate.other")
    (tmp_path / "flat.il").write_text(flat, encoding="utf-8")
    (tmp_path / TIE_SCRIPT).write_text(TIE_TCL, encoding="utf-8")
    res = run_tool(["yosys", "-q", "-p", f"tcl {TIE_SCRIPT} flat.il tied.il"], name="tie", log_dir=tmp_path,
                   timeout_s=60, cwd=tmp_path)
    assert res.ok and (tmp_path / "tied.il").read_text(encoding="utf-8") == flat


@pytest.mark.tools
def test_one_yosys_run_builds_the_miter_and_the_aiger(tmp_path: Path) -> None:
    """Registers without a reset (free start values): the miter, the tied start values and the AIGER come
    from one Yosys run, and the pipeline is proven equal to itself."""
    pipe = ("module t(input clk, input [3:0] a, b, output reg [4:0] y);\n  reg [3:0] ra, rb;\n"
            "  always @(posedge clk) begin ra <= a; rb <= b; y <= ra + rb; end\nendmodule\n")
    folder = tmp_path / "proof"
    v = prove_rewrite(ProofTask(pipe, pipe, "t", module_interface(pipe, "t", clock="clk")), folder)
    assert v.kind == "proven", v.summary()
    commands = (folder / "COMMANDS").read_text(encoding="utf-8")
    assert commands.count("yosys -q -s") == 1 and "hh_aiger" not in commands
    assert "hh_tie_mux" in (folder / "hh_miter_tied.il").read_text(encoding="utf-8")
