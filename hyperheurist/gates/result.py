"""Gate verdicts: a ``GateReport`` over the stages of a pipeline (``stages.model.StageResult`` each).

``GateResult``, ``passed`` and ``failed`` are the names the raw-text safety check (``gates.safety``) builds
its verdict with."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import JsonValue

from ..stages.model import StageId, StageResult, failed, passed

GateResult = StageResult
# what `hh gate` judges, in order: "synthesizes" is the synthesis stage's verdict; netlist_sim simulates its netlist
GATES: tuple[StageId, ...] = (StageId.SAFETY, StageId.COMPILE, StageId.STRUCTURE, StageId.SIMULATION,
                              StageId.EQUIVALENCE, StageId.SYNTHESIS, StageId.NETLIST_SIM)


@dataclass(frozen=True)
class GateReport:
    results: tuple[StageResult, ...]

    @property
    def failed(self) -> StageResult | None:
        """The first stage that ran and failed."""
        return next((r for r in self.results if not r.passed and not r.skipped), None)

    @property
    def passed(self) -> bool:
        return self.failed is None

    def result(self, stage: StageId) -> StageResult | None:
        return next((r for r in self.results if r.stage == stage), None)

    def to_dict(self) -> dict[str, JsonValue]:
        f = self.failed
        return {
            "passed": self.passed,
            "failed_gate": str(f.stage) if f else None,
            "message": f.message if f else "all gates passed",
            "results": [r.to_dict() for r in self.results],
            "wall_s": round(sum(r.wall_s for r in self.results), 4),
        }


__all__ = ["GATES", "GateReport", "GateResult", "failed", "passed"]
