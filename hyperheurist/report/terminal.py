"""The short plain-text table printed at the end of ``hh run``: initial vs best, improvement, where the report is."""

from __future__ import annotations

import json
from pathlib import Path

from ..record.summary import Point, RunSummary
from .fmt import METRICS, change_pct, fcost, fnum, pct, seconds

ROWS = ("cost", "area_um2", "delay_ns", "power_mw")


def _load_summary(run_dir: Path) -> tuple[RunSummary, str]:
    path = run_dir / "summary.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return RunSummary(), "summary.json not found (the run did not finish)"
    except (OSError, ValueError) as exc:
        return RunSummary(), f"summary.json unreadable ({type(exc).__name__})"
    if not isinstance(data, dict):
        return RunSummary(), "summary.json is not a JSON object"
    return RunSummary.read(data), ""


def _row(p: Point | None) -> dict[str, float | None]:
    """The table's rows of one design (none: the row shows '-')."""
    return {"cost": p.cost, "area_um2": p.area_um2, "delay_ns": p.delay_ns, "power_mw": p.power_mw} if p else {}


def _table(ini: dict[str, float | None], best: dict[str, float | None]) -> list[str]:
    head = f"  {'metric':<12}{'initial':>12}{'best':>12}{'change':>10}"
    lines = [head, "  " + "-" * (len(head) - 2)]
    for key in ROWS:
        label, _, unit = METRICS[key]
        name = f"{label.lower()}" + (f" ({unit})" if unit else "")
        show = fcost if key == "cost" else fnum
        lines.append(f"  {name:<12}{show(ini.get(key), missing='-'):>12}{show(best.get(key), missing='-'):>12}"
                     f"{pct(change_pct(ini.get(key), best.get(key)), missing='-'):>10}")
    return lines


def terminal_summary(run_dir: Path) -> str:
    """A few lines for the terminal; never raises (a missing or odd record gives a shorter summary)."""
    run_dir = Path(run_dir)
    try:
        return _summary_text(run_dir)
    except Exception as exc:  # the run itself finished: its summary line must not crash it
        return f"hh: run directory {run_dir} (summary not shown: {type(exc).__name__}: {exc})"


def _summary_text(run_dir: Path) -> str:
    s, problem = _load_summary(run_dir)
    name = s.design or run_dir.parent.name
    lines = [f"hh: {name}" + (f" ({s.status})" if s.status and s.status != "complete" else "")]
    p1 = s.phase1
    if problem:
        lines.append(f"  {problem}")
    elif s.best is None:
        rej = ", ".join(f"{g} {fnum(n)}" for g, n in p1.rejected_by_gate.items()) or "none recorded"
        lines.append(f"  no valid candidate: {fnum(p1.valid)} of {fnum(p1.candidates)} passed every gate; "
                     f"rejected by {rej}")
    else:
        ini = _row(s.initial)
        lines += _table(ini, _row(s.best))
        c0, c1 = ini.get("cost"), s.best.cost
        if c0 and c1 is not None:
            gain = 100 * (1 - c1 / c0)
            lines.append(f"  improvement: {gain:.1f}% lower cost than the initial design" if round(gain, 1) > 0
                         else "  improvement: none, the best design is the initial one")
        lines.append(f"  phase 1: {fnum(p1.valid)} of {fnum(p1.candidates)} candidates valid; phase 2: "
                     f"{fnum(s.evaluations, missing='?')} evaluations in {seconds(s.wall_s, missing='?')}")
        if s.proofs is not None and s.proofs.accepted:
            counts = ", ".join(f"{k} {n}" for k, n in s.proofs.by_verdict.items() if n)
            lines.append(f"  equivalence of {len(s.proofs.accepted)} accepted RTL change(s): {counts}; "
                         f"median proof {seconds(s.proofs.median_proof_s, missing='-')}")
        if s.proofs is not None and s.proofs.evidence_of(s.best.digest):
            lines.append(f"  evidence of the best design against the reference: {s.proofs.evidence_of(s.best.digest)} "
                         "(proven / bounded / simulated only)")
    report = run_dir / "report.html"
    lines.append(f"  report: {report}" if report.is_file() else f"  report: not written (hh report {run_dir})")
    lines.append(f"  run directory: {run_dir}")
    return "\n".join(lines)


def print_terminal_summary(run_dir: Path) -> None:
    """Print ``terminal_summary`` to stdout."""
    print(terminal_summary(run_dir))
