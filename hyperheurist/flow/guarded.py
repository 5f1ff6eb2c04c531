"""What a pool worker runs: ``evaluate``, with an unexpected exception turned into that candidate's fault."""

from __future__ import annotations

import traceback
from pathlib import Path

from ..evaluate import EvalTask, Outcome, evaluate, first_line
from ..journal import INFRA
from ..search.state import Evaluation


def evaluate_guarded(task: EvalTask) -> Outcome:
    """``evaluate``, but an unexpected exception on one candidate (a bug met by odd RTL) is recorded as that
    candidate's tool fault, with the traceback kept in its folder, instead of ending a long run."""
    try:
        return evaluate(task)
    except Exception as exc:  # noqa: BLE001 - the run goes on; the fault is recorded and retried on resume
        where = Path(task.run_dir) / "candidates" / task.state.candidate.short / "internal-error.txt"
        try:
            where.parent.mkdir(parents=True, exist_ok=True)
            where.write_text(traceback.format_exc(), encoding="utf-8")
            kept = f" (traceback in {where})"
        except OSError:
            kept = ""
        msg = f"internal error: {type(exc).__name__}: {first_line(exc)}{kept}"
        return Outcome(Evaluation(key=task.state.key, valid=False, failed_gate=INFRA, message=msg))
