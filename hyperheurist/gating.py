"""``run_gates``: the gate pipeline (``pipelines.GATE_PIPELINE``) through the stage runner."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .candidate import Candidate
from .config import DesignConfig
from .errors import ConfigError
from .gates.result import GATES, GateReport
from .pipelines import GATE_PIPELINE
from .stages.context import StageContext
from .stages.model import StageId
from .stages.runner import StageRunner


def default_golden(design: DesignConfig) -> Candidate | None:
    from .project.sources import reference_candidate  # a file, folder or filelist, with headers and defines

    return reference_candidate(design)


def gate_context(ctx: StageContext, reference: Candidate | None, equivalence: bool | None) -> StageContext:
    """``ctx`` set up for the gates: ``reference`` is the golden side (default: verification.reference);
    ``equivalence`` forces the formal stage on or off (default: verification.equivalence.enabled)."""
    ctx.golden = reference if reference is not None else default_golden(ctx.design)
    ctx.equivalence = ctx.design.verification.equivalence.enabled if equivalence is None else equivalence
    return ctx


def run_gates(cand: Candidate, design: DesignConfig, workdir: Path, *, reference: Candidate | None = None,
              equivalence: bool | None = None, only: Sequence[str] | None = None) -> GateReport:
    """Run safety, compile, structure, simulation, equivalence, synthesis and netlist_sim in order; stop at the first
    failure (later stages reported as skipped). ``only`` selects gates (safety always runs: every tool
    reads the canonical text it makes). Raises ToolError for infrastructure faults only."""
    stages = GATE_PIPELINE
    if only is not None:
        unknown = set(only) - set(GATES)
        if unknown:
            raise ConfigError(f"unknown gate(s): {', '.join(sorted(unknown))} (gates: {', '.join(GATES)})")
        wanted = {StageId.SAFETY, *map(StageId, only)}
        stages = tuple(s for s in GATE_PIPELINE if s.id in wanted)
    ctx = gate_context(StageContext(cand=cand, design=design), reference, equivalence)
    return GateReport(tuple(StageRunner(Path(workdir), ctx).run(stages)))
