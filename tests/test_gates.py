"""The gate chain with real tools on small designs in tests/data/gates (not the benchmarks)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.gating import run_gates
from hyperheurist.jsonio import read_json

DATA = Path(__file__).parent / "data" / "gates"
pytestmark = pytest.mark.tools


def gate(tmp_path: Path, design: str, rtl: str, **kw):
    d = load_design(DATA / design / "design.yaml", kw.pop("overrides", None))
    cand = Candidate.from_paths([DATA / design / rtl], top=d.top)
    return run_gates(cand, d, tmp_path / "cand", **kw)


def test_valid_combinational_design_passes_every_gate(tmp_path: Path) -> None:
    rep = gate(tmp_path, "alu", "good.v")
    assert rep.passed, rep.to_dict()
    stages = ["safety", "compile", "structure", "simulation", "equivalence", "synthesis", "netlist_sim"]
    assert [r.gate for r in rep.results] == stages
    assert not any(r.skipped for r in rep.results)
    assert "full proof" in rep.results[4].message
    sim = rep.results[3].details
    assert sim["checks"] == ["differential", "cocotb"] and sim["cocotb"]["tests"] == 1
    for i, g in enumerate(stages, 1):
        res = read_json(tmp_path / "cand" / f"{i:02d}-{g}" / "result.json")
        assert res["gate"] == g and res["passed"] is True


def test_valid_sequential_design_passes(tmp_path: Path) -> None:
    rep = gate(tmp_path, "counter", "good.v")
    assert rep.passed, rep.to_dict()
    eq = rep.results[4]
    assert eq.details["verdict"] == "proven" and "unbounded proof from reset" in eq.message


@pytest.mark.parametrize("rtl, gate_name, words", [
    ("syntax.v", "compile", ["syntax.v:3", "syntax error"]),
    ("width.v", "structure", ["width.v:1", "`y`", "9 bit", "says 8"]),
    ("latch.v", "structure", ["latch.v:2", "inferred latch", "`y`"]),
    ("loop.v", "structure", ["loop.v:", "combinational loop"]),
    ("multidriven.v", "structure", ["multidriven.v:", "multiply-driven"]),
    ("undriven.v", "structure", ["`y`", "never driven"]),
    ("initial.v", "structure", ["initial.v:2", "initial block"]),
])
def test_invalid_designs_fail_the_right_gate(tmp_path: Path, rtl: str, gate_name: str, words: list[str]) -> None:
    rep = gate(tmp_path, "alu", rtl)
    assert not rep.passed and rep.failed is not None
    assert rep.failed.gate == gate_name, rep.failed
    for w in words:
        assert w in rep.failed.message, rep.failed.message
    after = [r for r in rep.results if r.gate != gate_name and rep.results.index(r) > rep.results.index(rep.failed)]
    assert after and all(r.skipped and "not run" in r.message for r in after)


@pytest.mark.parametrize("rtl, task", [("system.v", "$system"), ("fopen.v", "$fopen")])
def test_side_effects_rejected_before_any_tool_runs(tmp_path: Path, rtl: str, task: str) -> None:
    rep = gate(tmp_path, "alu", rtl)
    assert rep.failed is not None and rep.failed.gate == "safety" and task in rep.failed.message
    cand_dir = tmp_path / "cand"
    assert sorted(p.name for p in cand_dir.iterdir()) == ["01-safety"]  # no src/, no tool stage folders
    assert not list(cand_dir.rglob("COMMANDS"))


def test_escaping_include_rejected(tmp_path: Path) -> None:
    rep = gate(tmp_path, "alu", "include.v")
    assert rep.failed is not None and rep.failed.gate == "safety" and "`include" in rep.failed.message


def test_hanging_design_is_killed_and_reported_invalid(tmp_path: Path) -> None:
    rep = gate(tmp_path, "counter", "hang.v", overrides={"verification.timeout_s": 3})
    f = rep.failed
    assert f is not None and f.gate == "simulation"
    assert "timeout" in f.message and f.details["cocotb"]["timed_out"] is True
    assert f.wall_s < 15


def test_wrong_reset_polarity_caught_by_simulation(tmp_path: Path) -> None:
    rep = gate(tmp_path, "counter", "reset_polarity.v")
    f = rep.failed
    assert f is not None and f.gate == "simulation"
    mism = f.details["differential"]["mismatch"]
    assert mism["cycle"] == 0 and mism["port"] == "count" and mism["got"] == "8'hxx"


def test_off_by_one_caught_by_cocotb_when_differential_is_off(tmp_path: Path) -> None:
    d = load_design(DATA / "counter" / "design.yaml", {"verification.differential.enabled": False})
    text = (DATA / "counter" / "ref.v").read_text().replace("count + 8'd1", "count + 8'd2")
    rep = run_gates(Candidate.from_text(text, top="counter", name="off_by_one.v"), d, tmp_path / "c")
    f = rep.failed
    assert f is not None and f.gate == "simulation" and f.details["failed_check"] == "cocotb"
    assert "cycle 0: count=" in f.message and "expected 1" in f.message


def test_bug_only_differential_catches(tmp_path: Path) -> None:
    """op 3 is never exercised by the directed cocotb test: the cocotb check alone passes it."""
    only_cocotb = gate(tmp_path / "a", "alu", "op3bug.v", equivalence=False,
                       overrides={"verification.differential.enabled": False})
    assert only_cocotb.passed
    rep = gate(tmp_path / "b", "alu", "op3bug.v")
    f = rep.failed
    assert f is not None and f.gate == "simulation" and f.details["failed_check"] == "differential"
    assert "op=3" in f.message and "expected 8'h" in f.message


def test_bug_only_formal_catches(tmp_path: Path) -> None:
    rep = gate(tmp_path, "alu", "rare.v")
    f = rep.failed
    assert rep.results[3].passed  # 200 random + corner vectors miss the single bad input pair
    assert f is not None and f.gate == "equivalence"
    assert "a=0x5a" in f.message and "b=0xc3" in f.message and "op=0x0" in f.message
    assert f.details["counterexample"][0]["inputs"] == {"a": "5a", "b": "c3", "op": "0"}


def test_sequential_formal_counterexample_from_reset(tmp_path: Path) -> None:
    text = (DATA / "counter" / "ref.v").read_text().replace("count <= 8'd0;", "count <= 8'd1;")
    d = load_design(DATA / "counter" / "design.yaml", {"verification.differential.enabled": False,
                                                      "verification.cocotb": None})
    rep = run_gates(Candidate.from_text(text, top="counter"), d, tmp_path / "c")
    f = rep.failed
    assert f is not None and f.gate == "equivalence" and "after reset" in f.message and "`count`" in f.message


def test_any_candidate_can_be_the_golden_side(tmp_path: Path) -> None:
    """Phase 2 passes the parent as the reference: the same top name on both sides must work."""
    parent = Candidate.from_paths([DATA / "alu" / "op3bug.v"], top="alu")
    d = load_design(DATA / "alu" / "design.yaml", {"verification.cocotb": None})
    same = run_gates(parent, d, tmp_path / "same", reference=parent)
    assert same.passed, same.to_dict()
    fixed = Candidate.from_paths([DATA / "alu" / "good.v"], top="alu")
    rep = run_gates(fixed, d, tmp_path / "diff", reference=parent)
    assert rep.failed is not None and rep.failed.gate == "simulation"


def test_only_selects_gates(tmp_path: Path) -> None:
    rep = gate(tmp_path, "alu", "rare.v", only=["safety", "compile"])
    assert rep.passed and [r.gate for r in rep.results] == ["safety", "compile"]
    json.dumps(rep.to_dict())
