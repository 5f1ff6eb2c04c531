"""LLM moves: PPA-directed rewrites of the current design by the LLM client in ``MoveContext.llm``.

Six moves, one per goal (area, timing, power) and scope: ``local`` asks for one small edit (cheap to
verify, often accepted), ``rewrite`` for a structural change (rarer but larger wins). Keeping them
apart lets the hyper-heuristic selector learn which pays off on this design. A move returns None
(not applicable) when there is no client, the client is dead (endpoint lost, budget spent), the
response has no usable code, or the optional critique rejects the proposal: it never raises.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...config import DesignConfig
from ...errors import HHError
from ...recipe import FlowPreset
from ..state import Move, MoveContext, State

if TYPE_CHECKING:  # the protocol only types the client; the llm package is not loaded by the search
    from ...llm.protocol import LLM

GOALS = ("area", "timing", "power")
SCOPES = ("local", "rewrite")


@dataclass(frozen=True)
class LLMMutation:
    """Ask the LLM for a new version of the design that improves ``goal``."""

    name: str
    goal: str
    scope: str
    kind: str = "llm"

    def propose(self, state: State, ctx: MoveContext, rng: random.Random) -> State | None:
        client: LLM | None = ctx.llm
        if client is None or not client.available:
            return None
        seed = rng.getrandbits(31)  # drawn even on failure, so the chain's stream does not depend on the reply
        metrics = ctx.metrics.to_dict() if ctx.metrics is not None else None  # the prompts read the JSON form
        try:
            new = client.mutate(ctx.design, state.candidate, metrics, self.goal, self.scope, seed=seed,
                                move=self.name)
            if new is None:
                return None
            if client.critique_enabled and not client.critique(ctx.design, state.candidate, new, metrics, self.goal):
                return None
        except HHError:  # LLMUnavailable and friends: the client records why; the search goes on
            return None
        return State(new, state.recipe)


def llm_moves(design: DesignConfig, flow: FlowPreset) -> list[Move]:
    """One move per (goal, scope); goals with zero weight in design.yaml are left out."""
    weights = design.ppa.weights.model_dump()
    if "weights" not in design.ppa.model_fields_set and flow.weights:  # the preset's weights, as the scorer does
        weights = {**weights, **flow.weights}
    wanted = {"area": weights["area"], "timing": weights["delay"], "power": weights["power"]}
    return [LLMMutation(f"llm_{g}_{s}", g, s) for g in GOALS if wanted[g] > 0 for s in SCOPES]
