"""The one way an equivalence check is set up and run: its bounds from the design, its tools under the design's limits.

The equivalence gate (``gates.equivalence``) and the rewrite proofs (``rewrite.prove``: a Phase-2 child against its
parent, the QoR pairs) build their ``formal.check.Check`` with ``check_job``: depth, CPU budget and engine from
``verification.equivalence``, the miter run's wall clock from ``limits.tool_timeout_s``, the counterexample
replay's from ``verification.timeout_s``. Their tool runs are served by a ``stages.serve.ToolSite.of`` the design's
``limits`` (``tool_timeout_s``, ``tool_mem_mb``, ``sandbox``): the stage runner's for the gate, ``prove_in``'s
for a proof outside a pipeline. No second set of timeouts, memory caps or sandbox modes exists for proofs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..config import Equivalence, Limits
from ..jsonio import write_text_atomic
from ..stages.model import Invocation, Reply, Request
from ..stages.serve import ToolSite, drive
from .check import Check, CheckJob, Side
from .miter import MiterSpec
from .verdict import Verdict


@dataclass(frozen=True)
class Bounds:
    """What bounds one check: the design's ``verification.equivalence`` and ``limits`` and its simulation timeout."""

    equivalence: Equivalence
    limits: Limits
    sim_timeout_s: float  # the counterexample replay's wall clock (``verification.timeout_s``)


def check_job(spec: MiterSpec, gold: Side, gate: Side, files: Mapping[str, str], bounds: Bounds,
              clean: Callable[[str], str] = str) -> CheckJob:
    """The check of ``gate`` against ``gold`` under ``bounds``."""
    eq = bounds.equivalence
    return CheckJob(spec, gold, gate, files=files, depth=eq.depth, timeout_s=eq.timeout_s, engine=eq.engine,
                    miter_timeout_s=bounds.limits.tool_timeout_s, replay_timeout_s=bounds.sim_timeout_s, clean=clean)


def prove_in(check: Check, folder: Path, limits: Limits, who: str) -> Verdict:
    """Run ``check`` outside a pipeline: its tools' files and logs in ``folder``, its artifacts written there."""
    folder = Path(folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    where = ToolSite.of(folder, limits, who)

    def serve(request: Request) -> Reply:
        if not isinstance(request, Invocation):
            raise TypeError(f"a proof runs tools, not {type(request).__name__}")
        return where.serve(request, folder)

    v = drive(check.plan(), serve)
    for name, text in check.files.items():
        write_text_atomic(folder / name, text)
    return v
