"""``hh audit RUN_DIR``: check that a run's record can be trusted.

1. The journal's hash chain, run id and resolved.yaml binding (``journal.verify``): a tampered,
   foreign, duplicated, deleted or reordered record is refused with one line (exit 2), as is a
   journal whose tail no longer matches what summary.json was written with.
2. The summary's best is the best the journal holds (every valid record rescored).
3. The best design's PPA is computed again from its sources and recipe, without the cache, and
   must reproduce the numbers recorded in best/ppa.json, summary.json and the journal (its scored
   netlist simulated beside its RTL on the way: ``netlist_sim``, as in step 4 with the generic netlist).
4. Every design the run accepted (initial, best, each accepted proposal) is re-gated from scratch
   against the reference, exactly as ``hh gate`` would, with parameter overrides baked in (with
   ``equivalence.against: parent`` the formal check against the reference too, as evidence: ``evidence``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Literal

import click
from pydantic import JsonValue

from .candidate import Candidate
from .config import DesignConfig, load_design
from .errors import EXIT_INVALID, EXIT_OK, InputError
from .gates.result import GateReport
from .journal import records_of
from .jsonio import dumps, read_json
from .record.entries import EvalRecord, JournalRecord, Phase1Record, StepRecord
from .record.enums import Validity
from .record.summary import Point, RunSummary
from .rundir import RunDir
from .sandbox_probe import enforce as enforce_sandbox
from .tempdirs import owned_tempdir

Metrics = dict[str, JsonValue]  # PPAMetrics.to_dict() as the journal holds it
METRIC_KEYS: tuple[Literal["area_um2", "cells", "delay_ns", "power_mw"], ...] = ("area_um2", "cells", "delay_ns",
                                                                                 "power_mw")
REL_TOL = 1e-6


def load_candidate(folder: Path) -> Candidate:
    """A candidate from its ``candidates/<digest12>/`` folder (sources + candidate.json)."""
    meta = read_json(folder / "candidate.json")
    cand = replace(Candidate.from_paths([folder / "src" / Path(n).name for n in meta["files"]], meta["top"],
                                        origin=meta.get("origin", "seed"), label=meta.get("label", ""),
                                        **({"defines": meta["defines"]} if meta.get("defines") else {})),
                   params=tuple(sorted(meta.get("params", {}).items())), parent=meta.get("parent"),
                   move=meta.get("move"), defines=tuple(sorted(meta.get("defines", {}).items())))
    if cand.digest != meta["digest"]:
        raise InputError(f"{folder}: sources do not match the recorded digest")
    return cand


def verified_records(rd: RunDir) -> list[JournalRecord]:
    """The journal's records, checked (chain, run id, resolved.yaml) and matched against summary.json."""
    records = records_of(rd.journal, rd.run_id, rd.resolved)
    head = RunSummary.read(read_json(rd.summary)).journal if rd.summary.is_file() else None
    if head is not None:  # summary.json names the journal it was written with
        n = head.records
        if n is None or n != len(records) or records[n - 1].hash != head.head:
            raise InputError(f"{rd.journal}: {len(records)} records, but summary.json was written after record {n} "
                             f"(hash {str(head.head)[:12]}): records were deleted or added; "
                             "cannot resume or audit from it")
    return records


def accepted_digests(rd: RunDir, records: list[JournalRecord]) -> list[str]:
    """Digests of the initial/best designs and of every accepted Phase-2 proposal, in first-seen order."""
    seen: dict[str, None] = {}
    for name in ("initial", "best"):
        ppa = rd.path / name / "ppa.json"
        if ppa.is_file():
            seen.setdefault(read_json(ppa)["candidate"]["digest"], None)
    for rec in records:
        if isinstance(rec, StepRecord) and rec.accepted and rec.proposal_digest:
            seen.setdefault(rec.proposal_digest, None)
    return list(seen)


def _close(a: object, b: object) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=1e-12)
    return a == b


def valid_metrics(records: list[JournalRecord]) -> list[tuple[int, str, Metrics]]:
    """(journal position from 1, key, metrics) of every valid evaluation the journal holds, Phase 1 first."""
    evals = [(i, r.key, r.metrics or {}) for i, r in enumerate(records, 1) if isinstance(r, EvalRecord) and r.valid]
    firsts = [(i, r.key, r.evaluation.metrics or {}) for i, r in enumerate(records, 1)
              if isinstance(r, Phase1Record) and r.verdict == Validity.VALID]
    return firsts + evals


def _recorded_best(rd: RunDir, records: list[JournalRecord], best: Point) -> list[tuple[str, Mapping[str, object]]]:
    """Every place the best design's metrics are written down: (where, metrics)."""
    key = best.key
    out: list[tuple[str, Mapping[str, object]]] = [
        ("summary.json best", best.to_json()), ("best/ppa.json", read_json(rd.path / "best" / "ppa.json")["metrics"])]
    out += [(f"journal record {i}", dict(m)) for i, k, m in sorted(valid_metrics(records), key=lambda ikm: ikm[0])
            if k == key]
    return out


def check_best(rd: RunDir, design: DesignConfig, records: list[JournalRecord], workdir: Path) -> list[str]:
    """Problems found with the recorded best: its numbers do not reproduce, or the journal holds a better one."""
    from .estimate import estimate
    from .flow import Scorer
    from .ppa import PPAMetrics
    from .recipe import Recipe, load_flow

    if not rd.summary.is_file():
        raise InputError(f"{rd.path}: no summary.json (the run never finished); resume it first: "
                         f"hh run --resume {rd.path}")
    best = RunSummary.read(read_json(rd.summary)).best
    if best is None or not best.key:
        return []
    if best.cost is None:
        return [f"{rd.summary}: the best design has no cost recorded"]
    problems: list[str] = []
    flow = load_flow(design.ppa.flow)
    valid = valid_metrics(records)
    baseline = next((r.evaluation.metrics for r in records
                     if isinstance(r, Phase1Record) and r.verdict == Validity.VALID), None)
    if baseline is not None:
        scorer = Scorer(design, flow)
        scorer.baseline = PPAMetrics.from_dict(baseline)
        for i, _, m in sorted(valid, key=lambda im: im[0]):
            if not m:
                continue
            c = scorer(PPAMetrics.from_dict(m))
            if c < best.cost - 1e-9 * max(1.0, abs(best.cost)):
                problems.append(f"journal record {i} scores {c:.6g}, better than the recorded best {best.cost:.6g}")
                break
    cand = load_candidate(rd.path / "candidates" / best.digest[:12])
    recipe = Recipe.from_dict({**best.recipe})
    again = estimate(cand, design, recipe, workdir / "ppa-best", power=best.power_fidelity or design.ppa.power,
                     cache=None).to_dict()
    for where, rec in _recorded_best(rd, records, best):
        bad = [k for k in METRIC_KEYS if k in rec and not _close(rec[k], again[k])]
        if bad:
            k = bad[0]
            problems.append(f"{where}: {k} {rec[k]} does not reproduce (recomputed {again[k]})")
    return problems


def audit_run(run_dir: Path, workdir: Path) -> tuple[list[tuple[str, Candidate, GateReport]], list[str]]:
    """(recorded digest, design with parameters baked in, its GateReport) for every accepted design, and
    the problems with the recorded best (its metrics do not reproduce, a better one is in the journal)."""
    from .evidence import with_reference_evidence
    from .gating import default_golden, run_gates
    from .search.moves.params import bake_parameters

    rd = RunDir.open(run_dir)
    records = verified_records(rd)
    design = load_design(rd.resolved)
    notice = enforce_sandbox(design.limits.sandbox)  # exit 3 now, not per candidate
    if notice:
        click.echo(notice, err=True)
    out: list[tuple[str, Candidate, GateReport]] = []
    for digest in accepted_digests(rd, records):
        folder = rd.path / "candidates" / digest[:12]
        if not (folder / "candidate.json").is_file():
            raise InputError(f"{folder}: candidate folder missing")
        cand = load_candidate(folder)
        baked = bake_parameters(cand)
        report = run_gates(baked, design, workdir / digest[:12])
        golden = default_golden(design)
        out.append((digest, cand, with_reference_evidence(report, baked, design, workdir / digest[:12],
                                                          reference=golden, equivalence=None)))
    return out, check_best(rd, design, records, workdir)


@click.command("audit")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print one verdict per design as JSON.")
def audit(run_dir: Path, as_json: bool) -> int:
    """Verify RUN_DIR's journal, recompute its best design's PPA, and re-gate every design it accepted."""
    with owned_tempdir("hh-audit-") as tmp:  # one a killed hh audit left goes at the next start
        results, problems = audit_run(run_dir, tmp)
    rows = [{"digest": d[:12], "label": c.label or f"{c.move} of {(c.parent or '')[:12]}",
             "params": dict(c.params), "passed": r.passed,
             "gate": r.failed.gate if r.failed else None, "message": r.failed.message if r.failed else ""}
            for d, c, r in results]
    if as_json:
        click.echo(dumps(rows))
    else:
        for row in rows:
            click.echo(f"{'PASS' if row['passed'] else 'FAIL'}  {row['digest']}  "
                       f"{row['message'] or row['label']}{' ' + str(row['params']) if row['params'] else ''}")
    for p in problems:
        click.echo(f"hh audit: FAIL: {p}", err=True)
    bad = sum(not r["passed"] for r in rows)
    click.echo(f"hh audit: {len(rows) - bad} of {len(rows)} accepted designs pass every gate; best design's PPA "
               f"{'does not reproduce or is not the best recorded' if problems else 'reproduces'}", err=True)
    return EXIT_INVALID if bad or problems else EXIT_OK
