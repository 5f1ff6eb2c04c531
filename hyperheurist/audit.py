"""``hh audit RUN_DIR``: re-gate every design a run accepted, against the golden reference.

Phase 2 gates each proposal against its parent; this closes the loop by checking every accepted
design (and the initial and best ones) from scratch, exactly as ``hh gate`` would, with parameter
overrides baked into the sources.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

import click

from .candidate import Candidate
from .config import load_design
from .errors import EXIT_INVALID, EXIT_OK, InputError
from .jsonio import dumps, read_json, read_jsonl
from .rundir import RunDir

from .sandbox import enforce as enforce_sandbox

def load_candidate(folder: Path) -> Candidate:
    """A candidate from its ``candidates/<digest12>/`` folder (sources + candidate.json)."""
    meta = read_json(folder / "candidate.json")
    cand = replace(Candidate.from_paths([folder / "src" / Path(n).name for n in meta["files"]], meta["top"],
                                        origin=meta.get("origin", "seed"), label=meta.get("label", "")),
                   params=tuple(sorted(meta.get("params", {}).items())), parent=meta.get("parent"), move=meta.get("move"),
                   defines=tuple(sorted(meta.get("defines", {}).items())))
    if cand.digest != meta["digest"]:
        raise InputError(f"{folder}: sources do not match the recorded digest")
    return cand


def accepted_digests(rd: RunDir) -> list[str]:
    """Digests of the initial/best designs and of every accepted Phase-2 proposal, in first-seen order."""
    seen: dict[str, None] = {}
    for name in ("initial", "best"):
        ppa = rd.path / name / "ppa.json"
        if ppa.is_file():
            seen.setdefault(read_json(ppa)["candidate"]["digest"], None)
    for rec in read_jsonl(rd.journal):
        if rec.get("type") == "step" and rec.get("accepted"):
            seen.setdefault(rec["proposal_digest"], None)
    return list(seen)


def audit_run(run_dir: Path, workdir: Path) -> list[tuple[str, Candidate, object]]:
    """(recorded digest, design with parameters baked in, its GateReport) for every accepted design."""
    from .gates import run_gates
    from .search.moves.params import bake_parameters

    rd = RunDir.open(run_dir)
    design = load_design(rd.resolved)
    out = []
    for digest in accepted_digests(rd):
        folder = rd.path / "candidates" / digest[:12]
        if not (folder / "candidate.json").is_file():
            raise InputError(f"{folder}: candidate folder missing")
        cand = load_candidate(folder)
        baked = bake_parameters(cand)
        out.append((digest, cand, run_gates(baked, design, workdir / digest[:12])))
    return out


@click.command("audit")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print one verdict per design as JSON.")
def audit(run_dir: Path, as_json: bool) -> int:
    """Re-gate every design RUN_DIR accepted (initial, best, each accepted proposal) against the reference."""
    with tempfile.TemporaryDirectory(prefix="hh-audit-") as tmp:
        results = audit_run(run_dir, Path(tmp))
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
    bad = sum(not r["passed"] for r in rows)
    click.echo(f"hh audit: {len(rows) - bad} of {len(rows)} accepted designs pass every gate", err=True)
    return EXIT_INVALID if bad else EXIT_OK
    notice = enforce_sandbox(design.limits.sandbox)  # exit 3 now, not per candidate
    if notice:
        click.echo(notice, err=True)
