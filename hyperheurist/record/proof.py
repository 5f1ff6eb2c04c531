"""An evaluation's equivalence proof as the journal records it (``formal.verdict.Verdict`` plus ``wall_s``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field, JsonValue

from .base import JsonRecord
from .enums import ProofKind

if TYPE_CHECKING:
    from ..formal.verdict import Verdict


class Proof(JsonRecord):
    """``verdict`` is the check's kind; ``counterexample``, ``files`` and ``cut`` are written when non-empty."""

    verdict: ProofKind
    engine: str = ""
    mode: str = ""
    reason: str = ""
    depth: int | None = None
    counterexample: list[dict[str, JsonValue]] = Field(default_factory=list)
    files: dict[str, str] = Field(default_factory=dict)
    cut: str = ""
    wall_s: float | int = 0.0

    @classmethod
    def of(cls, verdict: Verdict, wall_s: float) -> Proof:
        """The record of one equivalence stage's verdict, with the stage's wall time."""
        return cls.model_validate({**verdict.to_dict(), "wall_s": round(wall_s, 4)})
