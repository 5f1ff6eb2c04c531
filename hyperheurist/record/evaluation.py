"""An evaluation, and as the journal records it: flat in an ``eval`` record, nested in a ``phase1`` record."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import JsonValue

from ..ppa.metrics import PPAMetrics
from .base import JsonRecord
from .enums import FailedGate
from .proof import Proof


@dataclass(frozen=True)
class Evaluation:
    """What the evaluator found for one state: validity (else the gate it failed), then metrics and cost,
    and the equivalence proof (None when no equivalence check ran). The search takes it from here
    (``search.state`` re-exports it); on disk it is an ``EvaluationRecord``."""

    key: str
    valid: bool
    failed_gate: FailedGate | None = None
    message: str = ""
    metrics: PPAMetrics | None = None
    cost: float | None = None
    cached: bool = False
    wall_s: float = 0.0
    proof: Proof | None = None


EVALUATION_KEYS = ("key", "valid", "failed_gate", "message", "metrics", "cost", "cached", "wall_s", "proof")


class EvaluationRecord(JsonRecord):
    """An ``Evaluation`` on disk (``metrics`` is ``PPAMetrics.to_dict()``, a JSON edge)."""

    key: str
    valid: bool
    failed_gate: FailedGate | None = None
    message: str = ""
    metrics: dict[str, JsonValue] | None = None
    cost: float | int | None = None
    cached: bool = False
    wall_s: float | int = 0.0
    proof: Proof | None = None  # journals written before proofs were recorded have no key

    @staticmethod
    def fields_of(ev: Evaluation) -> dict[str, object]:
        """The keyword arguments that record ``ev`` (``wall_s`` rounded as it has always been written)."""
        return {"key": ev.key, "valid": ev.valid, "failed_gate": ev.failed_gate, "message": ev.message,
                "metrics": ev.metrics.to_dict() if ev.metrics is not None else None, "cost": ev.cost,
                "cached": ev.cached, "wall_s": round(ev.wall_s, 4), "proof": ev.proof}

    @classmethod
    def of(cls, ev: Evaluation) -> EvaluationRecord:
        return cls.model_validate(cls.fields_of(ev))

    def evaluation(self) -> Evaluation:
        """The evaluation this record holds (a resumed run's memo)."""
        return Evaluation(key=self.key, valid=self.valid, failed_gate=self.failed_gate, message=self.message,
                          metrics=PPAMetrics.from_dict(self.metrics) if self.metrics else None, cost=self.cost,
                          cached=self.cached, wall_s=float(self.wall_s), proof=self.proof)
