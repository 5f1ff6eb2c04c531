"""The Phase-2 adapter: the annealer's moves, its batch evaluator (journal-memoised, in the worker pool)
and the scorer that turns metrics into the cost it minimises."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..config import DesignConfig, Weights
from ..errors import ConfigError
from ..evaluate import EvalTask
from ..ppa import cost
from ..ppa.metrics import PPAMetrics
from ..recipe import FlowPreset
from ..search.annealer import AnnealResult, anneal
from ..search.moves import default_moves
from ..search.state import Evaluation, Move, MoveContext, State
from .progress import AnnealProgress
from .session import Session

if TYPE_CHECKING:
    from ..llm.protocol import LLM


def _weights(design: DesignConfig, flow: FlowPreset) -> Weights:
    """design.yaml's weights, unless it leaves them unset and the flow preset gives some."""
    if "weights" not in design.ppa.model_fields_set and flow.weights:
        return Weights(**flow.weights)
    return design.ppa.weights


class Scorer:
    """Turns metrics into the scalar cost, normalised to the baseline (first valid candidate)."""

    def __init__(self, design: DesignConfig, flow: FlowPreset) -> None:
        self.design = design
        self.weights = _weights(design, flow)
        self.baseline: PPAMetrics | None = None

    def __call__(self, metrics: PPAMetrics) -> float:
        assert self.baseline is not None, "baseline must be set before scoring"
        ppa = self.design.ppa
        return cost(metrics, self.baseline, self.weights, ppa.clock_period_ns, ppa.timing_penalty, ppa.objective)

    def score(self, ev: Evaluation) -> Evaluation:
        if not ev.valid or ev.metrics is None:
            return ev
        return Evaluation(**{**ev.__dict__, "cost": round(self(ev.metrics), 9)})


class BatchEvaluator:
    """Evaluates one iteration's proposals together: journal memo first (a resumed run re-runs nothing it
    recorded against the same parent), the rest in the pool; journaled in batch order, then scored."""

    def __init__(self, session: Session, scorer: Scorer) -> None:
        self.s = session
        self.scorer = scorer

    def __call__(self, batch: list[tuple[State, State | None]]) -> list[Evaluation]:
        known: dict[int, Evaluation] = {}
        todo: list[tuple[int, EvalTask]] = []
        for i, (st, parent) in enumerate(batch):
            memo = self.s.journal.lookup(st.key, parent.key if parent is not None else None)
            if memo is not None:
                known[i] = memo
            else:
                todo.append((i, EvalTask(self.s.design, self.s.rd.path, st, parent, self.s.power)))
        fresh = {i: res.evaluation for (i, _), res in zip(todo, self.s.run_tasks([t for _, t in todo]), strict=True)}
        out: list[Evaluation] = []
        for i, (st, parent) in enumerate(batch):  # whatever order the workers finished in
            ev = fresh[i] if i in fresh else known[i]
            self.s.count(ev)
            if i in fresh:
                self.s.note_fault(ev)
            self.s.journal.record_eval(st.candidate.digest, st.recipe.to_dict(), ev,
                                       parent.key if parent is not None else None)
            out.append(self.scorer.score(ev))
        return out


def select_moves(design: DesignConfig, flow: FlowPreset, llm_available: bool) -> list[Move]:
    moves = default_moves(design, flow, llm_available=llm_available)
    if design.anneal.moves:  # names were checked by preflight(); some may not apply here (no LLM, ...)
        wanted = set(design.anneal.moves)
        moves = [m for m in moves if m.name in wanted]
        if not moves:
            raise ConfigError(f"{design.source}: anneal.moves: none of {', '.join(sorted(wanted))} applies to this "
                              "design and run (no tunables, no LLM endpoint, or the flow preset fixes the knob)")
    return moves


def run_phase2(session: Session, flow: FlowPreset, scorer: Scorer, llm: LLM | None,
               starts: list[tuple[State, Evaluation]]) -> AnnealResult:
    design = session.design
    moves = select_moves(design, flow, llm_available=llm is not None)

    def ctx_factory(state: State, ev: Evaluation) -> MoveContext:
        return MoveContext(design=design, flow=flow, metrics=ev.metrics, llm=llm)

    progress = AnnealProgress(design.anneal.iterations, quiet=session.opts.quiet)
    try:
        return anneal(starts, moves, ctx_factory, BatchEvaluator(session, scorer), design.anneal,
                      session.journal.record_step, progress.update, session.stop)
    finally:
        progress.close()
