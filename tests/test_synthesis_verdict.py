""""Synthesizes" is the synthesis stage's verdict: Yosys' generic synthesis in ``hh gate``, the PPA synthesis
onto the liberty in an evaluation; the structure stage never synthesizes, and a design failing two stages
gets the verdict of the first."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.errors import ToolError
from hyperheurist.evaluate import EvalTask, evaluate
from hyperheurist.gates.synthesis import GenericSynthesisStage
from hyperheurist.gating import run_gates
from hyperheurist.ppa.synth import SynthesisStage
from hyperheurist.recipe import load_flow
from hyperheurist.search.state import State
from hyperheurist.stages.context import StageContext
from hyperheurist.stages.model import Plan, failed

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "benchmarks" / "adder32"
pytestmark = pytest.mark.tools


def _cand(name: str) -> tuple:
    d = load_design(BENCH / "design.yaml")
    return d, Candidate.from_paths([BENCH / "seeds" / name], d.top)


def _synthesis_fails(monkeypatch, stage: type) -> None:
    """Pretend Yosys refuses to synthesize this design (every other check is real)."""

    def plan(self, ctx: StageContext) -> Plan:
        return failed(self.id, "yosys rejected the design: pretend")
        yield  # a plan is a generator

    monkeypatch.setattr(stage, "plan", plan)


def test_hh_gate_synthesizes_in_its_own_stage(tmp_path: Path) -> None:
    d, c = _cand("ok_1_naive.v")
    rep = run_gates(c, d, tmp_path / "wd")
    assert rep.passed and rep.results[-2].gate == "synthesis" and not rep.results[-2].skipped
    assert "synth -top" not in (tmp_path / "wd" / "03-structure" / "structure.ys").read_text()
    assert "synth -top adder32" in (tmp_path / "wd" / "06-synthesis" / "synth.ys").read_text()


def test_a_synthesis_failure_is_the_synthesis_verdict(tmp_path: Path, monkeypatch) -> None:
    _synthesis_fails(monkeypatch, GenericSynthesisStage)
    d, c = _cand("ok_1_naive.v")
    rep = run_gates(c, d, tmp_path / "wd")
    assert rep.failed is not None and rep.failed.gate == "synthesis" and "pretend" in rep.failed.message
    assert all(r.passed for r in rep.results[:-2]) and rep.results[-1].skipped


def test_the_first_failing_stage_gives_the_verdict(tmp_path: Path, monkeypatch) -> None:
    _synthesis_fails(monkeypatch, GenericSynthesisStage)
    d, c = _cand("bad_carry_index.v")  # fails the simulation stage, and (pretend) synthesis
    rep = run_gates(c, d, tmp_path / "wd")
    assert rep.failed is not None and rep.failed.gate == "simulation"
    assert [(r.gate, r.message) for r in rep.results if r.skipped] == [
        ("equivalence", "not run: simulation failed"), ("synthesis", "not run: simulation failed"),
        ("netlist_sim", "not run: simulation failed")]
    assert not (tmp_path / "wd" / "06-synthesis").exists()


def test_evaluate_the_liberty_synthesis_is_the_synthesis_verdict(tmp_path: Path, monkeypatch) -> None:
    d, c = _cand("ok_1_naive.v")
    monkeypatch.setenv("HH_CACHE_DIR", str(tmp_path / "cache"))
    task = EvalTask(d, tmp_path / "run", State(c, load_flow(d.ppa.flow).recipe), None, d.ppa.power)
    _synthesis_fails(monkeypatch, SynthesisStage)
    out = evaluate(task)
    assert out.evaluation.failed_gate == "synthesis" and "pretend" in out.evaluation.message
    assert out.gate_report is not None
    stages = {g["gate"]: g for g in out.gate_report["results"]}
    assert stages["equivalence"]["passed"] and not stages["equivalence"]["skipped"]
    assert stages["sta"]["skipped"] and stages["sta"]["message"] == "not run: synthesis failed"
    assert out.evaluation.proof is not None and out.evaluation.proof.verdict == "proven"


def test_evaluate_a_tool_fault_in_synthesis_is_infrastructure(tmp_path: Path, monkeypatch) -> None:
    d, c = _cand("ok_1_naive.v")
    monkeypatch.setenv("HH_CACHE_DIR", str(tmp_path / "cache"))

    def plan(self, ctx: StageContext) -> Plan:
        raise ToolError("yosys synthesis failed: ERROR: pretend")
        yield

    monkeypatch.setattr(SynthesisStage, "plan", plan)
    out = evaluate(EvalTask(d, tmp_path / "run", State(c, load_flow(d.ppa.flow).recipe), None, d.ppa.power))
    assert out.evaluation.failed_gate == "infrastructure" and "pretend" in out.evaluation.message
