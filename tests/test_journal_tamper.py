"""A run record that can be trusted: resume and `hh audit` refuse a tampered journal with one line naming
the first bad record (exit 2); forged numbers that keep the hash chain intact fail the audit's PPA recompute."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_inproc import hh_in_process
from runrecord import journal

from hyperheurist.config import load_design
from hyperheurist.journal import record_hash
from hyperheurist.record.base import CHAIN

DATA = Path(__file__).parent / "data" / "flow"
REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.tools

# What resume and audit answer is the point here, not how a process behaves: they run in this process
# (cli.main, the entry point; exit code, stdout, stderr as a subprocess gives them), and so does the seed-2 run,
# whose journal (the foreign line's source) is all that is used of it. The audit recomputes the best design's
# PPA without the PPA cache either way; what a run leaves held in this process (tool versions, the sandbox probe,
# the preprocessor's memo, also kept on disk) is keyed by content and changes no verdict.
answer = hh_in_process


@pytest.fixture(scope="module")
def runs(request: pytest.FixtureRequest, tmp_path_factory) -> tuple[Path, Path]:
    """Seed 1 (the design's own: the session's shared run, conftest.py; tests tamper with copies) and seed 2.
    Seed 2 runs first: meanwhile the other worker may be making the shared run, which is then ready. Seed 2 only
    gives the foreign line (its line 5): one iteration without the finish (7 lines, 3 evaluations, ~4 CPU s; the
    whole run was 122 lines, ~35 CPU s on a cold cache) has a step record there, as seed 1 has, of another move."""
    out = tmp_path_factory.mktemp("runs")
    res = answer("run", str(DATA / "design.yaml"), "--out", str(out), "--quiet", "--no-report", "--seed", "2",
                 "--iterations", "1", "--set", "anneal.polish=0")
    assert res.returncode == 0, res.stderr
    own, other = request.getfixturevalue("flow_run"), next(p for p in out.glob("*/*") if p.is_dir())
    # the foreign kind tests nothing a re-chained copy would not, unless line 5 is another record, not only
    # another run's chain (run id, seq, prev, hash)
    mine, foreign = ({k: v for k, v in json.loads(lines_of(run)[5]).items() if k not in CHAIN} for run in (own, other))
    assert mine != foreign, "seed 2's line 5 must be another record than seed 1's"
    return own, other


def lines_of(run: Path) -> list[str]:
    return (run / "journal.jsonl").read_text().splitlines(keepends=True)


def rechain(lines: list[str]) -> list[str]:
    """What a forger who knows the format does: recompute every hash after an edit."""
    out, prev = [], None
    for ln in lines:
        rec = json.loads(ln)
        if prev is not None:
            rec["prev"] = prev
        rec["hash"] = record_hash(rec)
        prev = rec["hash"]
        out.append(json.dumps(rec) + "\n")
    return out


def forge_area(lines: list[str], key: str, area: float) -> list[str]:
    out = []
    for ln in lines:
        rec = json.loads(ln)
        if rec.get("key") == key and rec["type"] == "eval" and rec["valid"]:
            rec["metrics"]["area_um2"] = area
        elif rec.get("key") == key and rec["type"] == "phase1" and rec["verdict"] == "valid":
            rec["evaluation"]["metrics"]["area_um2"] = area
        out.append(json.dumps(rec) + "\n")
    return out


def tamper(kind: str, run: Path, other: Path) -> None:
    j = run / "journal.jsonl"
    lines = lines_of(run)
    if kind == "edited":  # a forged eval record, chain not recomputed
        rec = json.loads(lines[4])
        rec["message"] = "forged"
        lines[4] = json.dumps(rec) + "\n"
    elif kind == "foreign":  # a line of another run, at its own position
        lines[5] = lines_of(other)[5]
    elif kind == "duplicated":
        lines.insert(5, lines[4])
    elif kind == "deleted":
        del lines[5]
    elif kind == "reordered":
        lines[4], lines[5] = lines[5], lines[4]
    elif kind == "resolved":  # another design's configuration
        other_design = load_design(REPO / "benchmarks" / "traffic_fsm" / "design.yaml")
        (run / "resolved.yaml").write_text(other_design.resolved_yaml())
        return
    j.write_text("".join(lines))


KINDS = ["edited", "foreign", "duplicated", "deleted", "reordered", "resolved"]


@pytest.mark.parametrize("kind", KINDS)
def test_tampered_run_is_refused_by_resume_and_audit(runs, tmp_path: Path, kind: str) -> None:
    run = tmp_path / "run"
    shutil.copytree(runs[0], run)
    tamper(kind, run, runs[1])
    before = (run / "journal.jsonl").read_bytes()
    for args in (("run", "--resume", str(run), "--quiet", "--no-report"), ("audit", str(run))):
        res = answer(*args)
        err = res.stderr.strip().splitlines()
        assert res.returncode == 2, (kind, args[0], res.stderr)
        assert len(err) == 1 and "Traceback" not in res.stderr, err
        assert ("record" in err[0] or "resolved.yaml" in err[0]), err
    assert (run / "journal.jsonl").read_bytes() == before, "a refused journal is left as it was"


def test_first_bad_record_is_named(runs, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(runs[0], run)
    tamper("deleted", run, runs[1])
    res = answer("audit", str(run))
    assert "record 6:" in res.stderr and "expected 5" in res.stderr, res.stderr


def test_deleted_tail_is_refused_by_audit(runs, tmp_path: Path) -> None:
    """Cutting the last records keeps a valid chain prefix: summary.json says how long the journal was."""
    run = tmp_path / "run"
    shutil.copytree(runs[0], run)
    (run / "journal.jsonl").write_text("".join(lines_of(run)[:-2]))
    res = answer("audit", str(run))
    assert res.returncode == 2 and "deleted or added" in res.stderr, res.stderr


def test_intact_run_passes_audit(runs) -> None:
    """Every design the run accepted is re-gated from scratch and passes; the best design's PPA reproduces.
    (A candidate's source changed on disk: test_audit.py.)"""
    res = answer("audit", str(runs[0]), "--json")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "best design's PPA reproduces" in res.stderr
    rows = json.loads(res.stdout)
    accepted = {r["proposal_digest"][:12] for r in journal(runs[0])
                if r["type"] == "step" and r["accepted"]}
    assert accepted, "the run accepted no design: the audit above checked nothing"
    assert accepted <= {r["digest"] for r in rows} and all(r["passed"] for r in rows), rows


def test_audit_catches_forged_metrics_with_a_recomputed_chain(runs, tmp_path: Path) -> None:
    """Best area forged to 1 um2 everywhere it is written, hashes recomputed: the recompute catches it."""
    run = tmp_path / "run"
    shutil.copytree(runs[0], run)
    summary = json.loads((run / "summary.json").read_text())
    key = summary["best"]["key"]
    lines = rechain(forge_area(lines_of(run), key, 1.0))
    (run / "journal.jsonl").write_text("".join(lines))
    summary["best"]["area_um2"] = 1.0
    summary["journal"]["head"] = json.loads(lines[-1])["hash"]
    (run / "summary.json").write_text(json.dumps(summary))
    ppa = json.loads((run / "best" / "ppa.json").read_text())
    ppa["metrics"]["area_um2"] = 1.0
    (run / "best" / "ppa.json").write_text(json.dumps(ppa))
    res = answer("audit", str(run))
    assert res.returncode == 1, res.stdout + res.stderr
    assert "area_um2 1.0 does not reproduce" in res.stderr, res.stderr


def test_audit_catches_a_forged_record_better_than_the_best(runs, tmp_path: Path) -> None:
    """A valid record forged to a tiny area (chain recomputed, summary untouched): the summary's best is not
    the best the journal holds."""
    run = tmp_path / "run"
    shutil.copytree(runs[0], run)
    lines = lines_of(run)
    key = next(json.loads(ln)["key"] for ln in lines if '"type": "eval"' in ln and '"valid": true' in ln)
    lines = rechain(forge_area(lines, key, 1.0))
    (run / "journal.jsonl").write_text("".join(lines))
    summary = json.loads((run / "summary.json").read_text())
    summary["journal"]["head"] = json.loads(lines[-1])["hash"]
    (run / "summary.json").write_text(json.dumps(summary))
    res = answer("audit", str(run))
    assert res.returncode == 1, res.stdout + res.stderr
    assert "better than the recorded best" in res.stderr, res.stderr
