"""One candidate evaluation: the gates (against the parent in Phase 2), then PPA.

Runs in worker processes; everything it needs travels in an ``EvalTask`` (picklable), everything it
finds comes back as an ``Evaluation`` without cost (the parent process scores it against the baseline).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from .config import DesignConfig
from .errors import EXIT_INVALID, HHError
from .rundir import RunDir
from .runner import set_run_commands_file
from .search.state import Evaluation, State


@dataclass(frozen=True)
class EvalTask:
    design: DesignConfig
    run_dir: Path
    state: State
    parent: State | None = None
    power: str = "vectorless"
    gates: bool = True  # False when the caller already gated this RTL


@dataclass(frozen=True)
class Outcome:
    """An evaluation plus, when gates ran, the full gate report (for Phase-1 records and repair)."""

    evaluation: Evaluation
    gate_report: dict | None = None


def worker_init(commands_file: str | None) -> None:
    """Process-pool initializer: every worker appends tool command lines to the run's COMMANDS."""
    set_run_commands_file(Path(commands_file) if commands_file else None)


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def evaluate(task: EvalTask) -> Outcome:
    """Gates, then PPA. Gates are skipped when only the recipe changed (the RTL is the parent's,
    already proven) or when the caller says so; in Phase 2 the parent is the differential reference."""
    from .gates import run_gates
    from .gates.chain import settle_synthesis
    from .ppa import PPACache, estimate

    t0 = time.monotonic()
    state = task.state
    cdir = RunDir(task.run_dir).candidate_dir(state.candidate)
    same_rtl = task.parent is not None and task.parent.candidate.digest == state.candidate.digest
    report_dict = None
    report = None
    reference = task.parent.candidate if task.parent is not None else None
    # one gate folder per evaluation: two chains may propose the same RTL with different recipes in one
    # batch, and a shared folder let one evaluation's simulator delete the other's build mid-run
    gdir = cdir if reference is None else cdir / f"vs-{reference.short}-{state.recipe.digest}"

    def rejected(report) -> Outcome:
        failed = report.failed
        ev = Evaluation(key=state.key, valid=False, failed_gate=failed.gate if failed else "unknown",
                        message=failed.message if failed else "", wall_s=time.monotonic() - t0)
        return Outcome(ev, report.to_dict())

    try:
        if task.gates and not same_rtl:
            # the PPA synthesis below stands in for the structure gate's generic synthesis (settled
            # by running it only if the PPA synthesis fails): the same verdicts, one synthesis less
            report = run_gates(state.candidate, task.design, gdir, reference=reference, defer_synthesis=True)
            report_dict = report.to_dict()
            if not report.passed:
                return rejected(report)
        metrics = estimate(state.candidate, task.design, state.recipe, cdir / f"ppa-{state.recipe.digest}",
                           power=task.power, cache=PPACache.default())
    except HHError as exc:
        if report is not None:
            try:
                settled = settle_synthesis(report, state.candidate, task.design, gdir, reference=reference)
            except HHError:
                settled = report
            if not settled.passed:
                return rejected(settled)  # the structure gate's synthesis fails too: a structure verdict
        if exc.exit_code == EXIT_INVALID:
            # a tool stopped by our limits on this candidate, or Yosys refusing its RTL: the design's fault,
            # as in hh ppa (exit 1), never an infrastructure fault that would stop the search
            ev = Evaluation(key=state.key, valid=False, failed_gate="synthesis", message=first_line(exc),
                            wall_s=time.monotonic() - t0)
            return Outcome(ev, report_dict)
        # an infrastructure fault on this proposal: recorded, never accepted, the run goes on
        ev = Evaluation(key=state.key, valid=False, failed_gate="infrastructure", message=first_line(exc),
                        wall_s=time.monotonic() - t0)
        return Outcome(ev, report_dict)
    ev = Evaluation(key=state.key, valid=True, metrics=metrics, cached=metrics.cached, wall_s=time.monotonic() - t0)
    return Outcome(ev, report_dict)
