"""Checks of a finished run directory derived from its own journal, so they hold for any seed and design:
the summary's best is the cheapest valid evaluation the journal records, best/ holds exactly that design,
and the counts agree with the records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hyperheurist.config import load_design
from hyperheurist.flow import Scorer
from hyperheurist.jsonio import read_jsonl
from hyperheurist.ppa.metrics import PPAMetrics
from hyperheurist.recipe import load_flow


def journal(run: Path) -> list[dict[str, Any]]:
    return list(read_jsonl(run / "journal.jsonl"))


def valid_costs(run: Path) -> dict[str, float]:
    """Every valid evaluation in the journal (Phase 1 and Phase 2), costed as the flow costs it: against the
    first valid Phase-1 candidate, rounded as the flow rounds."""
    records = journal(run)
    design = load_design(run / "resolved.yaml")
    scorer = Scorer(design, load_flow(design.ppa.flow))
    valid = [(r["key"], r["evaluation"]["metrics"]) for r in records
             if r["type"] == "phase1" and r["verdict"] == "valid"]
    valid += [(r["key"], r["metrics"]) for r in records if r["type"] == "eval" and r["valid"]]
    scorer.baseline = PPAMetrics.from_dict(valid[0][1])
    return {key: round(scorer(PPAMetrics.from_dict(m)), 9) for key, m in valid}


def check_run_record(run: Path) -> dict[str, Any]:
    """Assert the run's outputs agree with its journal; returns summary.json."""
    summary: dict[str, Any] = json.loads((run / "summary.json").read_text())
    records = journal(run)
    costs = valid_costs(run)
    cheapest = min(costs.values())
    best = summary["best"]
    assert best["cost"] == cheapest, (best["cost"], cheapest)
    assert costs[best["key"]] == cheapest, "the summary's best is not the journal's cheapest design"
    first_valid = next(r for r in records if r["type"] == "phase1" and r["verdict"] == "valid")
    assert summary["initial"]["key"] == first_valid["key"], "the initial design is the first valid candidate"
    assert summary["initial"]["cost"] == costs[first_valid["key"]]
    for folder, point in (("best", best), ("initial", summary["initial"])):
        ppa = json.loads((run / folder / "ppa.json").read_text())
        assert ppa["candidate"]["digest"] == point["digest"], f"{folder}/ holds another design than the summary"
        assert ppa["cost"] == point["cost"] and ppa["metrics"]["area_um2"] == point["area_um2"]
    # every evaluation is journaled once: Phase-1 verdicts and Phase-2 batch items (memo hits included)
    assert summary["evaluations"] == sum(1 for r in records if r["type"] in ("phase1", "eval"))
    check_proofs(summary, records)
    end = records[-1]
    assert end["type"] == "end" and end["status"] == summary["status"] and end["best_cost"] == best["cost"]
    assert summary["journal"] == {"records": len(records), "head": end["hash"]}
    return summary


VERDICTS = ("proven", "bounded", "refuted", "inconclusive")


def check_proofs(summary: dict[str, Any], records: list[dict[str, Any]]) -> None:
    """Every evaluation record carries its equivalence verdict (None: no check ran), and the summary lists each
    accepted Phase-2 RTL change once with the verdict of its evaluation against its parent."""
    verdicts: dict[tuple[str, str], str] = {}  # (state key, parent): verdict of that evaluation
    by_rtl: dict[str, str] = {}  # RTL digest: the first verdict any evaluation of that RTL gave
    for r in records:
        if r["type"] in ("phase1", "eval"):
            assert "proof" in r, f"journal record {r['seq']} has no proof field"
            assert r["proof"] is None or (r["proof"]["verdict"] in VERDICTS and r["proof"]["wall_s"] >= 0), r["proof"]
            if r["proof"] is not None:
                by_rtl.setdefault(r["digest"], r["proof"]["verdict"])
                if r["type"] == "eval":
                    verdicts[(r["key"], r["parent"])] = r["proof"]["verdict"]
    changes: dict[tuple[str, str], str] = {}
    for r in records:
        if r["type"] == "step" and r["accepted"] and r["proposal_digest"] != r["parent_digest"]:
            pair = (r["proposal"], r["parent"])
            changes.setdefault(pair, verdicts.get(pair) or by_rtl.get(r["proposal_digest"], "not checked"))
    for name in ("initial", "best"):  # the check that admitted the state, else the one that covers its RTL
        point = summary[name]
        first = next(r for r in records if r["type"] in ("phase1", "eval") and r["key"] == point["key"])
        assert point["proof"] == (first["proof"]["verdict"] if first["proof"] else by_rtl.get(point["digest"])), name
    listed = {(a["key"], a["parent"]): a["verdict"] for a in summary["proofs"]["accepted"]}
    assert listed == changes
    assert summary["proofs"]["accepted_rtl_changes"] == len(changes) == sum(summary["proofs"]["by_verdict"].values())
