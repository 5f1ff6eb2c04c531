"""The values the search walks over and the protocol every move implements."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ..candidate import Candidate
from ..config import DesignConfig
from ..ppa.metrics import PPAMetrics
from ..recipe import FlowPreset, Recipe
from ..record.evaluation import Evaluation as Evaluation  # the search's evaluation is the record's

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


@dataclass
class MoveContext:
    """What a move may look at: the design, the flow preset, the current metrics, an LLM (or None)."""

    design: DesignConfig
    flow: FlowPreset
    metrics: PPAMetrics | None = None
    llm: LLM | None = None


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
