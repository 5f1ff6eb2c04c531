"""The low-level heuristics (moves) and the default set the annealer selects from."""

from __future__ import annotations

from ...config import DesignConfig
from ...recipe import FlowPreset
from ..state import Move
from .absdiff import SharedAbsDiff
from .accumulators import CondIncrementToAdd, NarrowAccumulator
from .arith import BalanceChain, ConstMultShiftAdd
from .bitinvariants import BitInvariant
from .counters import CounterDeadCompare, CounterWidth
from .datapath import FactorCommon, ShareAddSub, ShareMuxOperator
from .dontcare import UnobservableGating
from .egraph import EgraphRewrite
from .fsm import FsmEncoding
from .invariants import SequentialInvariant
from .llm import llm_moves
from .looplift import LoopLift
from .operators import OperatorLibrary
from .params import TunableParamMove
from .recipe import RecipeKnobMove, recipe_moves
from .recognise import FunctionRecognition
from .redundantctl import RedundantControl
from .registers import DropDatapathReset, EnableGating
from .truthtable import TruthTable
from .wordlevel import CancelCompare, DecoderCompare, FoldConstants, SharePartialSum


def rtl_moves() -> list[Move]:
    """The deterministic, offline RTL transforms."""
    return [ConstMultShiftAdd(), BalanceChain(), FsmEncoding(), DropDatapathReset(), EnableGating(),
            ShareMuxOperator(), ShareAddSub(), FactorCommon(), DecoderCompare(), FoldConstants(), CancelCompare(),
            SharePartialSum(), CounterWidth(), CounterDeadCompare(), NarrowAccumulator(),
            CondIncrementToAdd(), SharedAbsDiff(), EgraphRewrite(), OperatorLibrary(), TruthTable(), LoopLift(),
            SequentialInvariant(), BitInvariant(), UnobservableGating(), FunctionRecognition(),
            RedundantControl()]


def default_moves(design: DesignConfig, flow: FlowPreset, llm_available: bool) -> list[Move]:
    """Every move that can apply to this design: RTL transforms, parameters, recipe knobs the preset
    varies, and the LLM moves when a client is available. Per-state applicability is the moves' own
    business (they return None)."""
    moves: list[Move] = rtl_moves()
    if design.tunables:
        moves.append(TunableParamMove())
    moves += [m for m in recipe_moves() if len(flow.space.get(m.knob, ())) > 1]
    if llm_available:
        moves += llm_moves(design, flow)
    return moves


__all__ = [
    "BalanceChain", "CancelCompare", "CondIncrementToAdd", "ConstMultShiftAdd", "CounterDeadCompare", "CounterWidth",
    "DecoderCompare", "DropDatapathReset", "EgraphRewrite", "EnableGating", "FactorCommon", "FoldConstants",
    "FsmEncoding", "LoopLift", "NarrowAccumulator", "OperatorLibrary", "RecipeKnobMove", "ShareAddSub",
    "ShareMuxOperator", "SharePartialSum", "SharedAbsDiff", "TruthTable", "TunableParamMove", "default_moves",
    "llm_moves", "recipe_moves", "rtl_moves",
    "SequentialInvariant", "UnobservableGating", "BitInvariant", "FunctionRecognition", "RedundantControl",
]
