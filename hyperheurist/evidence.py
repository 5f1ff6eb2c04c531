"""The reference in the loop of ``hh gate`` and ``hh audit``, whatever ``equivalence.against`` says.

``against: parent`` tells ``hh run`` to prove Phase-2 changes against their parent only, because a proof
of a seed against the reference does not finish in budget (another multiplier or divider architecture).
The gate chain then skips the formal check against the reference; ``hh gate`` and ``hh audit`` run it
anyway, as evidence: a replayed counterexample fails the design (exit 1); proven and bounded pass as
such; a check that spent its budget (or that a busy machine's wall clock stopped) passes with its verdict
named and the evidence against the reference stated as simulation only. With ``against: all`` the check
is a gate like any other and ``verification.equivalence.policy`` decides.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from .candidate import Candidate
from .config import DesignConfig
from .errors import ToolError
from .gates.result import GateReport
from .gating import run_gates
from .stages.model import StageId, StageResult, short

EVIDENCE_DIR = "reference-evidence"


def reference_in_loop(design: DesignConfig) -> DesignConfig:
    """``design`` with the formal check against the reference (``against: parent`` is for Phase-2 changes)."""
    eq = design.verification.equivalence
    if eq.against == "all":
        return design
    v = design.verification.model_copy(update={"equivalence": eq.model_copy(update={"against": "all"})})
    return design.model_copy(update={"verification": v})


def _as_evidence(r: StageResult) -> StageResult:
    """The check's result as ``hh gate`` reports it: only a replayed difference fails."""
    verdict = r.details.get("verdict")
    if r.passed or verdict == "refuted":
        return r
    msg = short(f"evidence against the reference: simulation only (equivalence.against: parent): {r.message}")
    return replace(r, passed=True, message=msg, details={**r.details, "evidence": "simulated only"})


def with_reference_evidence(report: GateReport, cand: Candidate, design: DesignConfig, workdir: Path, *,
                            reference: Candidate | None, equivalence: bool | None) -> GateReport:
    """``report`` with the formal check against the reference the chain skipped for ``against: parent``
    run in its place (``workdir/reference-evidence``); unchanged otherwise or when a gate failed."""
    eq = design.verification.equivalence
    on = eq.enabled if equivalence is None else equivalence
    res = report.result(StageId.EQUIVALENCE)
    if eq.against != "parent" or not on or not report.passed or res is None or not res.skipped:
        return report
    t0 = time.monotonic()
    try:
        again = run_gates(cand, reference_in_loop(design), workdir / EVIDENCE_DIR, reference=reference,
                          equivalence=True, only=[str(StageId.EQUIVALENCE)])
        new = again.result(StageId.EQUIVALENCE)
    except ToolError as exc:  # the wall clock stopped the check before its budget: no verdict either way
        new = StageResult(StageId.EQUIVALENCE, False, short(f"no verdict: {exc}"), {"verdict": "inconclusive"},
                          time.monotonic() - t0)
    if new is None or new.skipped:
        return report
    return GateReport(tuple(_as_evidence(new) if r.stage == StageId.EQUIVALENCE else r for r in report.results))
