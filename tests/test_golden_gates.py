"""Golden tests of the commands and scripts each gate runs, with fake tools (``tests/fake_tools``).

The fakes record every call; the recorded argv, working folders, environment names and scripts are
compared with ``tests/golden/gates-*.txt`` (``HH_REGEN_GOLDEN=1`` rewrites them). The real-tool
tests (test_gates.py and others) stay: these pin what the stages ask of the tools.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_tools import FakeTools, check_golden, install, render

from hyperheurist.candidate import Candidate
from hyperheurist.cli import cli
from hyperheurist.config import load_design
from hyperheurist.errors import ToolError
from hyperheurist.gates import GateReport
from hyperheurist.gating import run_gates

DATA = Path(__file__).parent / "data" / "gates"


@pytest.fixture
def fakes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTools:
    return install(tmp_path, monkeypatch)


def _gates(tmp_path: Path, design: str, rtl: str,
           overrides: dict[str, object] | None = None) -> tuple[GateReport, Path]:
    d = load_design(DATA / design / "design.yaml", overrides)
    cand = Candidate.from_paths([DATA / design / rtl], top=d.top)
    work = tmp_path / "work"
    return run_gates(cand, d, work), work


@pytest.mark.parametrize("design, rtl, overrides, golden", [
    ("alu", "good.v", None, "gates-alu.txt"),
    ("counter", "good.v", None, "gates-counter.txt"),
    ("counter", "good.v", {"verification.equivalence.engine": "yosys-sat"}, "gates-counter-sat.txt"),
])
def test_every_gate_runs_the_golden_commands(fakes: FakeTools, tmp_path: Path, design: str, rtl: str,
                                             overrides: dict[str, object] | None, golden: str) -> None:
    rep, work = _gates(tmp_path, design, rtl, overrides)
    assert rep.passed, rep.to_dict()
    verdicts = "".join(f"{r.gate}: {'skipped' if r.skipped else 'passed' if r.passed else 'failed'}\n"
                       for r in rep.results)
    check_golden(golden, verdicts + "\n" + render(fakes.records(work), work, tmp_path))


TESTBENCH = """module tb;
  reg clk = 0, rst_n = 0, en = 1;
  reg [15:0] d = 3;
  wire [15:0] s;
  acc dut (.clk(clk), .rst_n(rst_n), .en(en), .d(d), .s(s));
  always #5 clk = ~clk;
  initial begin #20 rst_n = 1; #50 $display("PASSED"); $finish; end
endmodule
"""


def test_testbench_and_parameters_reach_every_tool(fakes: FakeTools, tmp_path: Path) -> None:
    """A parameter override (-P, -G, -chparam, a defparam module for the testbench) and a self-checking
    testbench, on the PPA accumulator (its own reference; no cocotb)."""
    tb = tmp_path / "tb" / "tb_acc.v"
    tb.parent.mkdir()
    tb.write_text(TESTBENCH)
    acc = Path(__file__).parent / "data" / "ppa" / "acc"
    d = load_design(acc / "design.yaml", {"verification.testbench": str(tb),
                                          "interface.ports": [{"name": "en", "dir": "input", "width": 1},
                                                              {"name": "d", "dir": "input", "width": 16},
                                                              {"name": "s", "dir": "output", "width": 16}]})
    cand = Candidate.from_paths([acc / "acc.v"], top=d.top).with_params({"WIDTH": "16"}, move="test")
    ref = Candidate.from_paths([acc / "acc.v"], top=d.top, origin="reference").with_params({"WIDTH": "16"},
                                                                                          move="test")
    work = tmp_path / "work"
    rep = run_gates(cand, d, work, reference=ref)
    assert rep.passed, rep.to_dict()
    assert rep.results[3].details["checks"] == ["differential", "testbench"]
    text = render(fakes.records(work), work, tmp_path)
    assert "-Pacc.WIDTH=16" in text and "-GWIDTH=16" in text and "-chparam WIDTH 16" in text
    check_golden("gates-acc-testbench-params.txt", text)


def test_hh_gate_runs_the_golden_commands(fakes: FakeTools, tmp_path: Path) -> None:
    work = tmp_path / "work"
    res = CliRunner().invoke(cli, ["gate", str(DATA / "alu" / "design.yaml"), str(DATA / "alu" / "good.v"),
                                   "--only", "compile", "--workdir", str(work)],
                             standalone_mode=False, catch_exceptions=False)
    assert res.return_value == 0, res.output
    assert [ln.split()[:2] for ln in res.output.splitlines()] == [["PASS", "safety"], ["PASS", "compile"]]
    check_golden("gates-cli-only-compile.txt", render(fakes.records(work), work, tmp_path))


# ---- error paths: what each gate makes of a tool that fails, hangs, crashes or writes nothing -----------

def _failed(rep: GateReport, gate: str) -> str:
    assert rep.failed is not None and rep.failed.gate == gate, rep.to_dict()
    later = rep.results[[r.gate for r in rep.results].index(gate) + 1:]
    assert all(r.skipped and r.message == f"not run: {gate} failed" for r in later), rep.to_dict()
    return rep.failed.message


def test_iverilog_error_fails_compile_naming_the_file(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("iverilog", match="a.vvp", exit=2, stderr="../src/good.v:3: syntax error\nI give up.\n")
    rep, work = _gates(tmp_path, "alu", "good.v")
    assert _failed(rep, "compile") == "iverilog: good.v:3: syntax error"
    assert "verilator" not in [r.tool for r in fakes.records(work)]  # the first error stops the gate


def test_verilator_error_fails_compile(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("verilator", exit=1, stderr="%Error: ../canonical/canonical.v:4:9: Can't find definition of 'q'\n"
                                           "%Error: Exiting due to 1 error(s)\n")
    rep, _ = _gates(tmp_path, "alu", "good.v")
    assert _failed(rep, "compile") == "verilator: canonical.v:4:9: Can't find definition of 'q'"


def test_yosys_hang_in_structure_is_a_timeout(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("yosys", match="structure.ys", sleep=60)
    rep, _ = _gates(tmp_path, "alu", "good.v", {"limits.tool_timeout_s": 1})
    assert _failed(rep, "structure") == "yosys timed out after 1 s (design too large?)"


def test_yosys_error_in_structure_names_the_stage(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("yosys", match="structure.ys", exit=1, outputs=False,
               stderr="../canonical/canonical.v:7: ERROR: syntax error, unexpected ';'\n")
    rep, _ = _gates(tmp_path, "alu", "good.v")
    assert _failed(rep, "structure") == "yosys elaboration failed: canonical.v:7: syntax error, unexpected ';'"


def test_simulator_hang_is_killed_at_the_simulation_timeout(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("vvp", match="differential.vvp", sleep=60)
    rep, _ = _gates(tmp_path, "alu", "good.v", {"verification.timeout_s": 1})
    assert _failed(rep, "simulation") == ("differential simulation killed at the 1 s wall-clock timeout "
                                          "(the design hangs the simulator)")


def test_differential_bench_that_never_passes(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("vvp", match="differential.vvp", outputs=False)
    rep, _ = _gates(tmp_path, "alu", "good.v")
    assert _failed(rep, "simulation").startswith("differential test: the simulation ended before all cycles ran")


def test_cocotb_without_results_fails_simulation(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("vvp", match="sim.vvp", outputs=False, stderr="vvp: cannot load the VPI module\n")
    rep, _ = _gates(tmp_path, "alu", "good.v")
    assert _failed(rep, "simulation") == "cocotb test_alu: no results: vvp: cannot load the VPI module"


def test_cocotb_hang_is_killed(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("vvp", match="sim.vvp", sleep=60)
    rep, _ = _gates(tmp_path, "alu", "good.v", {"verification.timeout_s": 2})
    assert _failed(rep, "simulation").startswith("cocotb test_alu: simulation killed at the 2 s wall-clock timeout")


def test_preprocessor_without_output_fails_safety(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("ivlpp", outputs=False)
    rep, _ = _gates(tmp_path, "alu", "good.v")
    assert _failed(rep, "safety").startswith("preprocessing: preprocessing failed: ivlpp ok in")


def test_preprocessor_crash_is_an_infrastructure_fault(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("ivlpp", signal=11)
    with pytest.raises(ToolError, match="ivlpp crashed \\(SIGSEGV\\)"):
        _gates(tmp_path, "alu", "good.v")


def test_abc_without_verdict_is_inconclusive(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("yosys-abc", outputs=False, stdout="abc: something odd\n")
    rep, _ = _gates(tmp_path, "alu", "good.v")
    msg = _failed(rep, "equivalence")
    eq = next(r for r in rep.results if r.gate == "equivalence")
    assert eq.details["verdict"] == "inconclusive" and "no verdict (abc: something odd)" in msg


def test_preprocessor_hang_fails_safety(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("ivlpp", sleep=60)
    rep, _ = _gates(tmp_path, "alu", "good.v", {"limits.tool_timeout_s": 1})
    assert _failed(rep, "safety").startswith("preprocessing: preprocessing timed out after 1 s")


def test_miter_yosys_cannot_build(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("yosys", match="write_rtlil hh_hier.il", exit=1, outputs=False,
               stdout="hh_miter.v:3: ERROR: Module `alu' referenced in module `hh_miter' is not part of the design.\n")
    rep, work = _gates(tmp_path, "alu", "good.v")
    msg = _failed(rep, "equivalence")
    assert "cannot build the miter: hh_miter.v:3: Module `alu' referenced" in msg, msg
    assert [r.scripts.get("hh_read_reference.ys", "").split("\n")[1] for r in fakes.records(work)
            if "hh_read_reference.ys" in r.argv] == ["hierarchy -check -top hhref_alu"]  # the reference alone reads


def test_synthesis_gate_fails_on_a_yosys_error(fakes: FakeTools, tmp_path: Path) -> None:
    fakes.rule("yosys", match="synth.ys", exit=1, outputs=False,
               stderr="ERROR: Found 1 unmapped cell in module alu\n")
    rep, _ = _gates(tmp_path, "alu", "good.v")
    assert "Found 1 unmapped cell" in _failed(rep, "synthesis")
