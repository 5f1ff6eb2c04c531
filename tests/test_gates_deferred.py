"""run_gates(defer_synthesis=True) and evaluate(): the structure gate's generic synthesis is left to
the PPA synthesis that follows, with the same verdicts as the full chain."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.errors import ToolError
from hyperheurist.evaluate import EvalTask, evaluate
from hyperheurist.gates import run_gates, structure
from hyperheurist.gates.chain import settle_synthesis
from hyperheurist.recipe import load_flow
from hyperheurist.search.state import State

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "benchmarks" / "adder32"
pytestmark = pytest.mark.tools


def _cand(name: str) -> tuple:
    d = load_design(BENCH / "design.yaml")
    return d, Candidate.from_paths([BENCH / "seeds" / name], d.top)


def _key(report) -> list[tuple]:
    return [(r.gate, r.passed, r.skipped, r.message) for r in report.results]


def _synth_fails(monkeypatch) -> None:
    """Pretend Yosys' generic synth fails on this design (the rest of the structure checks pass)."""
    real = structure._yosys

    def fake(ctx, stage, synth=True):
        return "yosys synthesis failed: pretend" if synth else real(ctx, stage, synth)

    monkeypatch.setattr(structure, "_yosys", fake)


def test_valid_design_same_report_without_the_generic_synth(tmp_path: Path) -> None:
    d, c = _cand("ok_1_naive.v")
    full = run_gates(c, d, tmp_path / "full")
    fast = run_gates(c, d, tmp_path / "fast", defer_synthesis=True)
    assert fast.passed and _key(full) == _key(fast)
    assert "synth -top" in (tmp_path / "full" / "03-structure" / "structure.ys").read_text()
    assert "synth -top" not in (tmp_path / "fast" / "03-structure" / "structure.ys").read_text()
    assert settle_synthesis(fast, c, d, tmp_path / "fast") == fast  # it synthesizes: unchanged


def test_later_failure_settles_the_synthesis_first(tmp_path: Path, monkeypatch) -> None:
    _synth_fails(monkeypatch)
    d, c = _cand("bad_carry_index.v")  # fails the simulation gate
    full = run_gates(c, d, tmp_path / "full")
    fast = run_gates(c, d, tmp_path / "fast", defer_synthesis=True)
    assert _key(full) == _key(fast)
    assert fast.failed.gate == "structure" and fast.failed.message == "yosys synthesis failed: pretend"
    assert [r.message for r in fast.results if r.skipped][-2:] == ["not run: structure failed"] * 2
    assert not (tmp_path / "fast" / "04-simulation").exists()  # the speculative stage is gone


def test_evaluate_turns_a_ppa_synthesis_failure_into_the_structure_verdict(tmp_path: Path, monkeypatch) -> None:
    import hyperheurist.ppa as ppa

    d, c = _cand("ok_1_naive.v")
    task = EvalTask(d, tmp_path / "run", State(c, load_flow(d.ppa.flow).recipe), None, d.ppa.power)

    def broken(*a, **k):
        raise ToolError("yosys synthesis failed: ERROR: pretend")

    monkeypatch.setattr(ppa, "estimate", broken)
    out = evaluate(task)  # the generic synthesis works: a tool fault, as before
    assert out.evaluation.failed_gate == "infrastructure" and "pretend" in out.evaluation.message

    _synth_fails(monkeypatch)
    out = evaluate(EvalTask(d, tmp_path / "run2", task.state, None, d.ppa.power))
    assert out.evaluation.failed_gate == "structure"
    assert out.evaluation.message == "yosys synthesis failed: pretend"
    gates = {g["gate"]: g for g in out.gate_report["results"]}
    assert gates["simulation"]["skipped"] and gates["simulation"]["message"] == "not run: structure failed"
