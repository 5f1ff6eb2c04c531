"""summary.json as the pydantic RunSummary: what ``hh run`` writes reads back and writes out byte for byte,
a damaged file reads (wrong types become None or empty), and a summary built in code is validated strictly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from hyperheurist.jsonio import dumps
from hyperheurist.record.summary import InfraFaults, JournalHead, Point, RunSummary

# written by ``hh run tests/data/flow/design.yaml`` (seed 1) before the summary became a pydantic model
WRITTEN = Path(__file__).parent / "data" / "summary" / "mac_small.json"


def test_a_written_summary_reads_and_writes_back_byte_for_byte() -> None:
    raw = WRITTEN.read_text(encoding="utf-8")
    s = RunSummary.read(json.loads(raw))
    assert dumps(s.to_json()) + "\n" == raw
    assert s.search is not None and s.search.iterations_done == s.search.iterations
    assert s.best is not None and s.best.digest and s.best.cost is not None and s.best.cost < 1.0
    assert s.proofs is not None and s.proofs.by_verdict["proven"] == len(s.proofs.accepted) > 0
    assert s.journal.records and s.journal.head and s.metrics is not None and s.metrics.best


def test_pareto_json_is_the_summary_pareto() -> None:
    s = RunSummary.read(json.loads(WRITTEN.read_text(encoding="utf-8")))
    assert [Point.read(p) for p in [p.to_json() for p in s.pareto]] == s.pareto


def test_a_damaged_summary_reads_without_error() -> None:
    s = RunSummary.read({"design": {"name": "d"}, "seed": "x", "phase1": 3, "best": "x",
                         "pareto": [1, {"cost": "a", "cells": 4.0, "recipe": {"abc": [1]}}],
                         "proofs": {"accepted": [{"verdict": "zz"}], "evidence": {"a": "made up"}},
                         "iterations_done": "q", "moves": {"m": {"proposals": 2, "x": "s"}}, "reproduce": "hh run",
                         "phase2_rejected_by_gate": None, "metrics": 5, "journal": {"records": "x"}})
    assert (s.design, s.seed, s.best, s.reproduce) == ("d", None, None, ["hh run"])
    assert s.pareto == [Point(cells=4)] and s.phase1.candidates == 0
    assert s.proofs is not None and s.proofs.accepted[0].verdict == "not checked" and s.proofs.evidence == {}
    assert s.search is not None and s.search.iterations_done is None
    assert s.moves == {"m": {"proposals": 2}} and s.phase2_rejected_by_gate == {}
    assert s.journal.records is None and s.metrics is not None and s.metrics.best == {}
    assert RunSummary.read([1, 2]).to_json() == RunSummary().to_json()


def test_phase1_counts_missing_on_disk_are_rebuilt_from_the_entries() -> None:
    s = RunSummary.read({"phase1": {"entries": [{"verdict": "valid"}, {"verdict": "invalid", "gate": "lint",
                                                                         "proof": {"verdict": "proven"}}]}})
    assert (s.phase1.candidates, s.phase1.valid, s.phase1.rejected_by_gate) == (2, 1, {"lint": 1})
    assert s.phase1.entries[1].proof == "proven"


def test_a_summary_built_in_code_is_checked_and_writes_only_its_sections() -> None:
    with pytest.raises(ValidationError):
        Point.model_validate({"cost": "cheap"})  # lenient only for what is read from disk
    out = RunSummary(status="no-valid-candidate").to_json()
    assert out["journal"] == {} and out["infrastructure_faults"] == {}  # not yet known: written empty
    assert "proofs" not in out and "metrics" not in out and "iterations_done" not in out
    assert "phase2_rejected_by_gate" not in out
    out = RunSummary(journal=JournalHead(records=3, head="ab"),
                     infrastructure_faults=InfraFaults(count=0, first=None)).to_json()
    assert out["journal"] == {"records": 3, "head": "ab"}
    assert out["infrastructure_faults"] == {"count": 0, "first": None}
    keys = list(out)
    assert keys[:4] == ["design", "seed", "run_dir", "phase1"] and keys[-1] == "journal"


def test_the_journal_section_is_absent_only_when_summary_json_has_none() -> None:
    """``hh audit`` and resume check the journal against summary.json's ``journal`` whenever it is an object
    (an empty one included: it names no record, so the check refuses); absent or not an object: no check."""
    assert RunSummary.read({}).journal is None and RunSummary.read({"journal": [3]}).journal is None
    head = RunSummary.read({"journal": {}}).journal
    assert head is not None and head.records is None
    assert RunSummary().to_json()["journal"] == {}  # a summary written before the head is known
