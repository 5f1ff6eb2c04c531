"""The QoR suite: every pair is complete and loadable, small pairs prove equivalent (and a broken hand
version is refuted), and the make-qor bookkeeping (distinct netlists, accepted RTL) reads journals right."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from hyperheurist.config import load_design

REPO = Path(__file__).resolve().parent.parent
SUITE = REPO / "benchmarks" / "qor"
PAIRS = sorted(p for p in SUITE.iterdir() if p.is_dir())


def _qor():
    spec = importlib.util.spec_from_file_location("qor_tool", REPO / "tools" / "qor.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


def test_suite_has_at_least_twelve_complete_pairs() -> None:
    assert len(PAIRS) >= 12
    classes = set()
    for p in PAIRS:
        for f in ("spec.md", "slow.v", "fast.v", "design.yaml"):
            assert (p / f).is_file(), p / f
        d = load_design(p / "design.yaml")
        assert d.top == p.name and d.verification.reference == (p / "slow.v").resolve()
        assert d.generation.seed_files() == [(p / "slow.v").resolve()]
        assert (p / "slow.v").read_text() != (p / "fast.v").read_text()
        classes.add(d.description)
    assert len(classes) >= 8


@pytest.mark.parametrize("pair", ["mux_share_add", "decoder_shift", "width_counter"])
def test_pair_is_proven_and_a_broken_hand_version_is_not(tmp_path: Path, pair: str) -> None:
    qor = _qor()
    d = load_design(SUITE / pair / "design.yaml")
    slow, fast = (SUITE / pair / "slow.v").read_text(), (SUITE / pair / "fast.v").read_text()
    ok = qor.prove(d, slow, fast, tmp_path / "ok")
    assert ok["verdict"] == "proven" and ok["proven"], ok  # width_counter is sequential: unbounded, from reset
    broken = {"mux_share_add": ("a + (sel ? b : c)", "a + (sel ? c : b)"),
              "decoder_shift": ("(sel == i)", "(sel == 31 - i)"),
              "width_counter": ("cnt + 7'd1", "cnt + 7'd3")}[pair]
    bad = fast.replace(*broken)
    assert bad != fast
    no = qor.prove(d, slow, bad, tmp_path / "no")
    assert no["verdict"] == "refuted" and not no["proven"], no


def test_distinct_rate_and_accepted_rtl_from_a_journal(tmp_path: Path) -> None:
    qor = _qor()

    def ev(key: str, net: str | None, reused: bool = False) -> dict:
        details = {"netlist_digest": net, "netlist_reused": reused} if net else {}
        return {"type": "eval", "key": key, "valid": net is not None, "metrics": {"details": details}}

    recs = [{"type": "phase1", "key": "s", "evaluation": {"metrics": {"details": {"netlist_digest": "n0"}}}},
            ev("a", "n1"), ev("b", "n1", True), ev("c", "n0", True), ev("d", None), ev("e", "n2"),
            {"type": "step", "accepted": True, "parent_digest": "p", "proposal_digest": "q"},
            {"type": "step", "accepted": True, "parent_digest": "q", "proposal_digest": "q"},  # recipe only
            {"type": "step", "accepted": False, "parent_digest": "q", "proposal_digest": "r"},
            {"type": "step", "accepted": True, "parent_digest": "q", "proposal_digest": "s"}]
    (tmp_path / "journal.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    assert qor.distinct_rate(tmp_path) == {"evaluations": 5, "distinct": 2, "sta_skipped": 2, "rate": 0.4}
    assert qor.accepted_rtl(tmp_path) == ["q", "s"]
