"""The values the search walks over and the protocol every move implements."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..candidate import Candidate
from ..config import DesignConfig
from ..ppa.metrics import PPAMetrics
from ..recipe import FlowPreset, Recipe

if TYPE_CHECKING:
    from ..llm.protocol import LLM


@dataclass(frozen=True)
class State:
    """A design together with the synthesis recipe it is scored with."""

    candidate: Candidate
    recipe: Recipe

    @property
    def key(self) -> str:
        return f"{self.candidate.digest[:16]}-{self.recipe.digest}"


@dataclass(frozen=True)
class Evaluation:
    """What the evaluator found for one state: validity, then metrics and cost, and the equivalence
    verdict (``Verdict.to_dict()`` plus ``wall_s``; None when no equivalence check ran)."""

    key: str
    valid: bool
    failed_gate: str | None = None
    message: str = ""
    metrics: PPAMetrics | None = None
    cost: float | None = None
    cached: bool = False
    wall_s: float = 0.0
    proof: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key, "valid": self.valid, "failed_gate": self.failed_gate, "message": self.message,
            "metrics": self.metrics.to_dict() if self.metrics is not None else None, "cost": self.cost,
            "cached": self.cached, "wall_s": round(self.wall_s, 4), "proof": self.proof,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Evaluation:
        metrics = d.get("metrics")
        return cls(key=d["key"], valid=bool(d["valid"]), failed_gate=d.get("failed_gate"),
                   message=d.get("message", ""), metrics=PPAMetrics.from_dict(metrics) if metrics else None,
                   cost=d.get("cost"), cached=bool(d.get("cached", False)), wall_s=float(d.get("wall_s", 0.0)),
                   proof=d.get("proof"))  # journals written before proofs were recorded have no key: None


@dataclass
class MoveContext:
    """What a move may look at: the design, the flow preset, the current metrics, an LLM (or None)."""

    design: DesignConfig
    flow: FlowPreset
    metrics: PPAMetrics | None = None
    llm: LLM | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Move(Protocol):
    """A low-level heuristic. ``propose`` returns a new state, or None when it does not apply."""

    # read-only in the protocol, so frozen dataclass moves satisfy it too
    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str:  # "rtl" | "recipe" | "param" | "llm"
        ...

    def propose(self, state: State, ctx: MoveContext, rng: random.Random) -> State | None: ...


def finishing(move: Move) -> bool:
    """A finishing move (``finishing = True``: the operator library) rewrites operators into forms the
    word-level moves no longer recognise (an adder becomes a module instance), so the annealer lets any
    other applicable RTL rewrite go first, as a compiler runs algebraic rewrites before lowering."""
    return bool(getattr(move, "finishing", False))
