"""Synthesis-recipe moves: change one Yosys/ABC knob to another value the flow preset allows, never one the
state's own synthesis log shows cannot change its netlist (``knowledge.cannot_act``)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from ...recipe import KnobValue
from ..knowledge import cannot_act
from ..state import MoveContext, State


@dataclass(frozen=True)
class RecipeKnobMove:
    """Set ``knob`` to a different value from ``ctx.flow.space[knob]``; None if there is none."""

    name: str
    knob: str
    kind: str = "recipe"

    def choices(self, state: State, ctx: MoveContext) -> list[KnobValue]:
        """Every value this move may set here, in the flow preset's order."""
        current = getattr(state.recipe, self.knob)
        if self.knob == "fsm_encoding" and not state.recipe.fsm:
            return []  # the encoding only matters when Yosys extracts FSMs
        return [v for v in ctx.flow.space.get(self.knob, ())
                if v != current and not cannot_act(ctx.metrics, state.recipe, self.knob, v)]

    def neighbours(self, state: State, ctx: MoveContext, rng: random.Random) -> list[State]:
        """Every state this move can propose from ``state``, no draw (``search/polish.py`` asks them all)."""
        return [State(state.candidate, state.recipe.with_(**{self.knob: v})) for v in self.choices(state, ctx)]

    def propose(self, state: State, ctx: MoveContext, rng: random.Random) -> State | None:
        current = getattr(state.recipe, self.knob)
        choices = self.choices(state, ctx)
        if not choices:
            return None
        targets = [v for v in choices if isinstance(v, int)]
        if self.knob == "abc_delay_target_ps" and current is None and targets:
            # from no target (ABC maps for minimum delay) the loosest target is asked first: the one ABC can
            # most likely meet, and if it cannot, no tighter one changes the netlist (search/netlists.py);
            # tighter targets are explored from a state that has one
            return State(state.candidate, state.recipe.with_(**{self.knob: max(targets)}))
        return State(state.candidate, state.recipe.with_(**{self.knob: rng.choice(choices)}))


def recipe_moves() -> list[RecipeKnobMove]:
    return [
        RecipeKnobMove("recipe_abc_script", "abc_script"),
        RecipeKnobMove("recipe_delay_target", "abc_delay_target_ps"),
        RecipeKnobMove("recipe_fsm_encoding", "fsm_encoding"),
        RecipeKnobMove("recipe_share", "share"),
        RecipeKnobMove("recipe_opt_full", "opt_full"),
        RecipeKnobMove("recipe_multiplier", "multiplier"),
        RecipeKnobMove("recipe_adder", "adder"),
        RecipeKnobMove("recipe_adder_cells", "adder_cells"),
    ]
