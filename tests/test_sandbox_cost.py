"""What makes a sandboxed evaluation cheaper must not make it weaker (issue #14's cost target).

The simulation stage's cocotb run uses the compile stage's Icarus image when it was compiled from the same text
with cocotb's flags (one launch fewer), with the same verdicts; a design that declares its own time unit keeps
the compile it had (a default timescale could change Icarus' verdict there).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.gates import GateReport, run_gates

DATA = Path(__file__).parent / "data" / "gates"


def _gates(tmp_path: Path, text: str, only: list[str] | None = None) -> GateReport:
    d = load_design(DATA / "counter" / "design.yaml", {"verification.differential.enabled": False})
    return run_gates(Candidate.from_text(text, top="counter", name="counter.v"), d, tmp_path / "cand", only=only)


def test_cocotb_runs_the_compile_stage_image_with_the_same_verdicts(tmp_path: Path) -> None:
    good = (DATA / "counter" / "good.v").read_text()
    rep = _gates(tmp_path / "good", good)
    assert rep.passed, rep.to_dict()
    work = tmp_path / "good" / "cand"
    assert "-f cmds.f" in (work / "02-compile" / "COMMANDS").read_text()
    cocotb = (work / "04-simulation" / "cocotb" / "COMMANDS").read_text()
    assert "# cocotb-build: not run: sim.vvp is a copy of" in cocotb and "/iverilog " not in cocotb
    bad = (DATA / "counter" / "ref.v").read_text().replace("count + 8'd1", "count + 8'd2")
    f = _gates(tmp_path / "bad", bad).failed
    assert f is not None and f.gate == "simulation" and f.details["failed_check"] == "cocotb"
    assert "not run" in (tmp_path / "bad" / "cand" / "04-simulation" / "cocotb" / "COMMANDS").read_text()


@pytest.mark.parametrize("declared, verdict", [("timeunit 1ns; timeprecision 1ps;", None),
                                               ("timeunit 1ps;", "timeprecision is missing or is too large")])
def test_a_design_declaring_its_time_unit_keeps_its_own_compile(tmp_path: Path, declared: str,
                                                                verdict: str | None) -> None:
    text = (DATA / "counter" / "good.v").read_text().replace(");\n", f");\n    {declared}\n", 1)
    rep = _gates(tmp_path, text, only=["compile", "simulation"])  # Yosys 0.23 reads no timeunit
    work = tmp_path / "cand"
    assert "-f cmds.f" not in (work / "02-compile" / "COMMANDS").read_text()
    if verdict is None:  # cocotb builds its own image, with its own default timescale
        assert rep.passed, rep.to_dict()
        assert "/iverilog -o sim.vvp" in next(work.glob("*-simulation/cocotb/COMMANDS")).read_text()
    else:  # under cocotb's default timescale Icarus would accept it: the compile stage's verdict is kept
        f = rep.failed
        assert f is not None and f.gate == "compile" and verdict in f.message
