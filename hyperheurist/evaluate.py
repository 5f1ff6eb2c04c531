"""One candidate evaluation: one pipeline through the stage runner, gates then PPA.

Runs in worker processes; everything it needs travels in an ``EvalTask`` (picklable), everything it
finds comes back as an ``Evaluation`` without cost (the parent process scores it against the baseline).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from pydantic import JsonValue

from .config import DesignConfig
from .errors import HHError
from .formal.verdict import Verdict
from .gates.result import GateReport
from .journal import INFRA
from .record.enums import FailedGate
from .record.proof import Proof
from .rundir import RunDir
from .runner import set_run_commands_file
from .search.state import Evaluation, State
from .stages.context import StageContext
from .stages.model import StageId


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
    """An evaluation plus, when gates ran, the pipeline's report (for Phase-1 records and repair)."""

    evaluation: Evaluation
    gate_report: dict[str, JsonValue] | None = None


def worker_init(commands_file: str | None) -> None:
    """Process-pool initializer: every worker appends tool command lines to the run's COMMANDS."""
    set_run_commands_file(Path(commands_file) if commands_file else None)


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def proof_of(ctx: StageContext) -> Proof | None:
    """The equivalence verdict (with the stage's ``wall_s``) when the equivalence stage ran."""
    res = ctx.results.get(StageId.EQUIVALENCE)
    if res is None or res.skipped or not isinstance(res.value, Verdict):
        return None
    return Proof.of(res.value, res.wall_s)


def evaluation_folder(cdir: Path, task: EvalTask) -> Path:
    """One folder per evaluation: two chains may propose the same RTL with different recipes (or parents)
    in one batch, and a shared folder let one evaluation's simulator delete the other's build mid-run."""
    name = f"eval-{task.state.recipe.digest}"
    return cdir / (name if task.parent is None else f"{name}-vs-{task.parent.candidate.short}")


def evaluate(task: EvalTask) -> Outcome:
    """The evaluation pipeline: the gates (against the parent in Phase 2; the reference in Phase 1), then
    synthesis onto the liberty (the synthesis verdict), STA and power. Only the PPA stages run when only
    the recipe changed (the RTL is the parent's, already proven) or when the caller says so."""
    from .estimate import PPAReuse, key_for, metrics_of, ppa_context
    from .gating import gate_context
    from .pipelines import EVAL_PIPELINE, PPA_PIPELINE
    from .ppa.cache import PPACache
    from .stages.runner import StageRunner

    t0 = time.monotonic()
    state, design = task.state, task.design
    cdir = RunDir(task.run_dir).candidate_dir(state.candidate)
    same_rtl = task.parent is not None and task.parent.candidate.digest == state.candidate.digest
    gated = task.gates and not same_rtl
    ctx: StageContext | None = None
    try:
        ctx = ppa_context(state.candidate, design, state.recipe, task.power)
        if gated:
            gate_context(ctx, task.parent.candidate if task.parent else None, None)
        reuse = PPAReuse(PPACache.default(), key_for(state.candidate, design, state.recipe, task.power))
        if reuse.hit is not None and not gated:  # the RTL is proven and this recipe was estimated before
            m = metrics_of(ctx, reuse)
            return Outcome(Evaluation(key=state.key, valid=True, metrics=m, cached=True, wall_s=time.monotonic() - t0))
        results = StageRunner(evaluation_folder(cdir, task), ctx, reuse).run(EVAL_PIPELINE if gated else PPA_PIPELINE)
        report = GateReport(tuple(results))
        report_dict = report.to_dict() if gated else None
        failed = report.failed
        if failed is not None:
            ev = Evaluation(key=state.key, valid=False, failed_gate=FailedGate.of(failed.stage), message=failed.message,
                            wall_s=time.monotonic() - t0, proof=proof_of(ctx))
            return Outcome(ev, report_dict)
        metrics = metrics_of(ctx, reuse)
    except HHError as exc:  # an infrastructure fault on this proposal: recorded, never accepted, the run goes on
        ev = Evaluation(key=state.key, valid=False, failed_gate=INFRA, message=first_line(exc),
                        wall_s=time.monotonic() - t0, proof=proof_of(ctx) if ctx is not None else None)
        done = GateReport(tuple(ctx.results.values())) if gated and ctx is not None else None
        return Outcome(ev, done.to_dict() if done is not None else None)
    ev = Evaluation(key=state.key, valid=True, metrics=metrics, cached=metrics.cached, wall_s=time.monotonic() - t0,
                    proof=proof_of(ctx))
    return Outcome(ev, report_dict)
