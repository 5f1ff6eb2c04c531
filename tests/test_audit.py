"""Parameter baking and `hh audit`: every design a run accepted passes the gates from scratch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.search.moves.params import bake_parameters

REPO = Path(__file__).resolve().parent.parent
PREFIX = REPO / "benchmarks" / "adder32" / "seeds" / "ok_2_prefix.v"


def test_bake_parameters_writes_the_override_into_the_top_module() -> None:
    cand = Candidate.from_paths([PREFIX], "adder32").with_params({"ARCH": "1"}, move="tunable_param")
    baked = bake_parameters(cand)
    assert baked.params == ()
    assert "parameter ARCH = 1" in baked.text and "parameter ARCH = 0" not in baked.text
    assert bake_parameters(Candidate.from_paths([PREFIX], "adder32")).text == PREFIX.read_text()
    with pytest.raises(ValueError, match="NOPE"):
        bake_parameters(cand.with_params({"NOPE": "3"}, move="x"))


@pytest.mark.tools
def test_baked_design_behaves_like_the_overridden_one(tmp_path: Path) -> None:
    from hyperheurist.config import load_design
    from hyperheurist.estimate import estimate
    from hyperheurist.recipe import Recipe

    design = load_design(REPO / "benchmarks" / "adder32" / "design.yaml")
    cand = Candidate.from_paths([PREFIX], "adder32").with_params({"ARCH": "1"}, move="tunable_param")
    a = estimate(cand, design, Recipe(), tmp_path / "a")
    b = estimate(bake_parameters(cand), design, Recipe(), tmp_path / "b")
    assert (a.area_um2, a.delay_ns, a.cells) == (b.area_um2, b.delay_ns, b.cells)
    ripple = estimate(Candidate.from_paths([PREFIX], "adder32"), design, Recipe(), tmp_path / "c")
    assert ripple.delay_ns != a.delay_ns, "ARCH must change the design, or this test proves nothing"


@pytest.mark.tools
def test_audit_reads_the_candidates_on_disk_not_the_journal(flow_run: Path, tmp_path: Path) -> None:
    """On a copy of the session's run of tests/data/flow (conftest.py), the best design's source changed: the audit
    refuses it by its digest (the intact run passing the audit, every accepted design re-gated: test_journal_tamper)."""
    from shared_runs import copy_run

    run_dir = copy_run(flow_run, tmp_path / "run")
    best = json.loads((run_dir / "best" / "ppa.json").read_text())["candidate"]
    src = run_dir / "candidates" / best["digest"][:12] / "src" / best["files"][0]
    src.write_text(src.read_text().replace("+", "-", 1))
    bad = subprocess.run([sys.executable, "-m", "hyperheurist", "audit", str(run_dir)], capture_output=True, text=True,
                         timeout=600)
    assert bad.returncode == 2 and "digest" in bad.stderr, bad.stderr
