"""What annealing and its greedy finish share, passed explicitly: the moves, the evaluator, what the run
knows, its counts, its best state and its journal; and the one builder of their journal step records."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..record.entries import StepRecord
from ..record.enums import Phase, StepVerdict
from .knowledge import Knowledge, Scored, failed_gate, usable
from .pareto import ParetoArchive
from .state import Evaluation, Move, MoveContext, State
from .tally import Counters, MoveStats

Evaluate = Callable[[list[tuple[State, State | None]]], list[Evaluation]]
ContextFactory = Callable[[State, Evaluation], MoveContext]
HistoryPoint = dict[str, object]  # one point of the best-cost history (summary.json's ``history``)


@dataclass
class SearchState:
    """The search's shared state; ``Annealer`` drives it, ``polish.polish`` finishes it."""

    moves: dict[str, Move]
    ctx_factory: ContextFactory
    evaluate: Evaluate
    record: Callable[[StepRecord], None]
    best: Scored
    should_stop: Callable[[], bool] | None = None
    know: Knowledge = field(default_factory=Knowledge)
    pareto: ParetoArchive = field(default_factory=ParetoArchive)
    stats: dict[str, MoveStats] = field(default_factory=dict)
    counters: Counters = field(default_factory=Counters)
    history: list[HistoryPoint] = field(default_factory=list)
    iteration: int = 0  # annealing iterations done
    stopped: bool = False  # should_stop ended the run early

    def stop_requested(self) -> bool:
        if self.should_stop is not None and self.should_stop():
            self.stopped = True
        return self.stopped

    def evaluate_batch(self, batch: list[tuple[State, State | None]]) -> None:
        """Evaluate (proposal, parent) pairs together, check the evaluator's answer and learn from it."""
        results = self.evaluate(batch) if batch else []
        if len(results) != len(batch):
            raise ValueError(f"evaluate returned {len(results)} evaluations for {len(batch)} states")
        for (s, parent), ev in zip(batch, results, strict=True):
            if ev.key != s.key:
                raise ValueError(f"evaluate returned key {ev.key} for state {s.key}")
            self.know.record(s, parent, ev)
            self.pareto.add(s, ev)
        self.counters.evaluations += len(batch)

    def tally(self, move: str, ev: Evaluation) -> None:
        """Count one judged proposal of ``move``: valid, or invalid by the gate it failed."""
        st = self.stats[move]
        st.proposals += 1
        self.counters.proposals += 1
        if usable(ev):
            st.valid += 1
        else:
            st.invalid += 1
            gate = failed_gate(ev)
            self.counters.invalid[gate] = self.counters.invalid.get(gate, 0) + 1


def step_record(parent: Scored, iteration: int, move: str | None, *, chain: int | None,
                temperature: float | None, best_cost: float | None, not_applicable: list[str] | None = None,
                polish: bool = False) -> StepRecord:
    """A journal step before its proposal is judged (verdict not-applicable); ``judged`` fills in the rest.
    ``polish``: a step of the greedy finish (no chain, no temperature)."""
    state, ev = parent
    rec = StepRecord(chain=chain, iteration=iteration, temperature=temperature, move=move,
                     not_applicable=not_applicable or [], parent=state.key, parent_digest=state.candidate.digest,
                     proposal=None, proposal_digest=None, verdict=StepVerdict.NOT_APPLICABLE, cost=None,
                     current_cost=ev.cost, best_cost=best_cost, accepted=False, improved=False, reheated=False,
                     memo=False)
    if polish:
        rec.phase = Phase.POLISH
    return rec


def judged(rec: StepRecord, proposal: Scored, *, memo: bool, composed: bool, unchecked: bool) -> None:
    """The proposal a step judged (its verdict, delta and acceptance are set by the judge)."""
    state, ev = proposal
    rec.proposal, rec.proposal_digest, rec.cost = state.key, state.candidate.digest, ev.cost
    rec.memo, rec.composed, rec.unchecked = memo, composed, unchecked
    if not usable(ev):
        rec.verdict = StepVerdict.invalid(failed_gate(ev))
