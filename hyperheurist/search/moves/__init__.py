"""The low-level heuristics (moves) and the default set the annealer selects from."""

from __future__ import annotations

from ...config import DesignConfig
from ...recipe import FlowPreset
from ..state import Move
from .params import TunableParamMove
from .recipe import RecipeKnobMove, recipe_moves


def llm_moves(design: DesignConfig, flow: FlowPreset) -> list[Move]:
    """The LLM moves from ``search/moves/llm.py`` (``llm_moves(design, flow)``), if that module exists."""
    try:
        from . import llm
    except ImportError:
        return []
    factory = getattr(llm, "llm_moves", None)
    return list(factory(design, flow)) if callable(factory) else []


def default_moves(design: DesignConfig, flow: FlowPreset, llm_available: bool) -> list[Move]:
    """Every move that can apply to this design: parameter, recipe knobs the preset varies, LLM."""
    moves: list[Move] = []
    if design.tunables:
        moves.append(TunableParamMove())
    moves += [m for m in recipe_moves() if len(flow.space.get(m.knob, ())) > 1]
    if llm_available:
        moves += llm_moves(design, flow)
    return moves


__all__ = ["RecipeKnobMove", "TunableParamMove", "default_moves", "llm_moves", "recipe_moves"]
