"""Multi-chain hyper-heuristic simulated annealing over (RTL, recipe) states. No tool I/O.

One iteration: every chain proposes one state (the selector picks a move; a move that does not
apply is skipped and another is tried), the batch of new proposals is evaluated together by the
caller's ``evaluate`` (which may parallelise it), then every chain accepts or rejects by the
Metropolis rule. All randomness comes from ``random.Random(config.seed)``; results never depend on
wall time or on the order a worker pool finishes, so replaying with memoised evaluations (resume)
follows exactly the same trajectory. The temperature schedule is ``schedule.py``; what recipe knobs
did to the mapped netlist, ``netlists.py``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from ..config import Anneal
from ..errors import NoValidCandidate
from .netlists import NetlistMemory
from .pareto import ParetoArchive
from .schedule import Calibration, Temperature, acceptance_probability
from .selection import AdaptiveSelector, reward
from .state import Evaluation, Move, MoveContext, State

Scored = tuple[State, Evaluation]
Record = dict[str, Any]  # a journal or progress record (JSON)
Evaluate = Callable[[list[tuple[State, State | None]]], list[Evaluation]]
ContextFactory = Callable[[State, Evaluation], MoveContext]
MAX_ATTEMPTS = 12  # moves tried per chain and iteration before the chain sits the iteration out


def usable(ev: Evaluation) -> bool:
    """Only valid, scored evaluations may become current or best."""
    return ev.valid and ev.cost is not None and math.isfinite(ev.cost)


def cost_of(ev: Evaluation) -> float:
    """The cost of a usable evaluation (``usable`` is checked first)."""
    if ev.cost is None:
        raise ValueError(f"evaluation {ev.key} has no cost")
    return ev.cost


def memo_key(state: State, parent: State) -> str:
    """What an evaluation is remembered by. An RTL change is judged against its parent (the gates and the
    equivalence proof compare the two), so its evaluation holds for that parent only: reusing it for
    another parent would accept a change never checked against it. A recipe-only change of the parent's
    RTL runs no check, so its evaluation holds whatever the parent."""
    if state.candidate.digest == parent.candidate.digest:
        return state.key
    return f"{state.key}<{parent.key}"


@dataclass
class MoveStats:
    proposals: int = 0
    valid: int = 0
    invalid: int = 0
    accepted: int = 0
    improvements: int = 0
    not_applicable: int = 0
    credit: float = 0.0

    def to_dict(self) -> dict[str, float]:
        return {**asdict(self), "credit": round(self.credit, 6)}


@dataclass
class Counters:
    """Run totals; ``invalid`` counts rejected proposals by the gate that rejected them."""

    iterations: int = 0
    proposals: int = 0
    evaluations: int = 0
    memo_hits: int = 0
    accepted: int = 0
    improvements: int = 0
    not_applicable: int = 0
    reheats: int = 0
    inert_skips: int = 0
    invalid: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, int | dict[str, int]]:
        return {**asdict(self), "invalid": dict(sorted(self.invalid.items()))}


@dataclass
class Chain:
    index: int
    rng: random.Random
    current: Scored
    best: Scored
    temperature: Temperature = field(default_factory=Temperature)


@dataclass
class AnnealResult:
    best: Scored
    chain_best: list[Scored]
    pareto: list[Scored]
    move_stats: dict[str, dict[str, float]]  # name -> MoveStats fields and the selector's weight
    counters: dict[str, int | dict[str, int]]  # Counters.to_dict()
    history: list[Record]  # one entry per iteration, for plotting
    t0: float | None
    iterations_done: int
    stopped: bool  # should_stop ended the run early
    selector: dict[str, float] = field(default_factory=dict)

    @property
    def invalid_by_gate(self) -> dict[str, int]:
        invalid = self.counters.get("invalid", {})
        return dict(invalid) if isinstance(invalid, dict) else {}

    def to_dict(self) -> Record:
        s, e = self.best
        return {
            "best": {"key": s.key, "digest": s.candidate.digest, "cost": e.cost,
                     "metrics": e.metrics.to_dict() if e.metrics is not None else None, "recipe": s.recipe.to_dict()},
            "chain_best": [{"key": cs.key, "cost": ce.cost} for cs, ce in self.chain_best],
            "pareto": ParetoArchive(list(self.pareto)).points(),
            "moves": self.move_stats, "counters": self.counters, "history": self.history, "t0": self.t0,
            "iterations_done": self.iterations_done, "stopped": self.stopped, "selector": self.selector,
        }


@dataclass
class _Proposal:
    chain: Chain
    move: str | None
    state: State | None
    tried: list[str]


def static_context(ctx: MoveContext) -> ContextFactory:
    """A context factory that hands every move the same context with the current state's metrics."""

    def make(state: State, ev: Evaluation) -> MoveContext:
        return MoveContext(design=ctx.design, flow=ctx.flow, metrics=ev.metrics, llm=ctx.llm, extra=ctx.extra)

    return make


class Annealer:
    """The state of one annealing run; ``run`` drives it. Use ``anneal`` unless you need the parts."""

    def __init__(self, starts: list[Scored], moves: list[Move], ctx_factory: ContextFactory,
                 evaluate: Evaluate, config: Anneal, record: Callable[[Record], None],
                 progress: Callable[[Record], None] | None = None,
                 should_stop: Callable[[], bool] | None = None) -> None:
        valid = [(s, e) for s, e in starts if usable(e)]
        if not valid:
            raise NoValidCandidate("annealing needs at least one valid, scored start state")
        if not moves:
            raise ValueError("annealing needs at least one move")
        self.moves = {m.name: m for m in moves}
        if len(self.moves) != len(moves):
            raise ValueError("move names must be unique")
        self.ctx_factory, self.evaluate, self.config = ctx_factory, evaluate, config
        self.record, self.progress, self.should_stop = record, progress, should_stop
        master = random.Random(config.seed)
        self.selector = AdaptiveSelector([m.name for m in moves])
        self.stats = {m.name: MoveStats() for m in moves}
        self.memo: dict[str, Evaluation] = {}
        self.netlists = NetlistMemory()
        self._memo_before: set[str] = set()
        self.pareto = ParetoArchive()
        for s, e in starts:
            self.netlists.add(s, e)
            self.memo.setdefault(s.key, e)
            self.pareto.add(s, e)
        self.chains = [Chain(i, random.Random(master.getrandbits(64)), valid[i % len(valid)],
                             valid[i % len(valid)]) for i in range(config.chains)]
        self.best = min(valid, key=lambda se: cost_of(se[1]))  # min() keeps the first of equals
        self.t0 = config.t0
        self.calibration = Calibration(config.t_min, [])  # deltas seen before an automatic T0 is fixed
        for c in self.chains:
            c.temperature.value = self.t0
        self.counters = Counters()
        self.history: list[Record] = []
        self.iteration = 0
        self.stopped = False

    # -- proposing ---------------------------------------------------------------------------
    def _propose(self, chain: Chain) -> _Proposal:
        state, ev = chain.current
        ctx = self.ctx_factory(state, ev)
        tried: list[str] = []
        for _ in range(min(MAX_ATTEMPTS, len(self.moves))):
            name = self.selector.choose(chain.rng, exclude=tried)
            if name is None:
                break
            tried.append(name)
            new = self.moves[name].propose(state, ctx, chain.rng)
            if new is not None and self.moves[name].kind == "recipe" and self.netlists.skip(state, new):
                self.counters.inert_skips += 1
                new = None
            if new is None or new.key == state.key:
                self.stats[name].not_applicable += 1
                self.selector.update(name, 0.0)
                continue
            return _Proposal(chain, name, new, tried[:-1])
        return _Proposal(chain, None, None, tried)

    def _evaluate_new(self, proposals: list[_Proposal]) -> None:
        batch: list[tuple[State, State | None]] = []
        seen: set[str] = set()
        for p in proposals:
            if p.state is None:
                continue
            key = memo_key(p.state, p.chain.current[0])
            if key in self.memo or key in seen:
                continue
            seen.add(key)
            batch.append((p.state, p.chain.current[0]))
        if not batch:
            return
        results = self.evaluate(batch)
        if len(results) != len(batch):
            raise ValueError(f"evaluate returned {len(results)} evaluations for {len(batch)} states")
        for (s, parent), ev in zip(batch, results, strict=True):
            if ev.key != s.key:
                raise ValueError(f"evaluate returned key {ev.key} for state {s.key}")
            assert parent is not None
            self.memo[memo_key(s, parent)] = ev
            self.pareto.add(s, ev)
        self.counters.evaluations += len(batch)

    def _calibrate(self, proposals: list[_Proposal]) -> None:
        """Automatic T0 (``schedule.Calibration``); until then chains descend greedily."""
        if self.t0 is not None:
            return
        for p in proposals:
            if p.state is None:
                continue
            ev = self.memo[memo_key(p.state, p.chain.current[0])]
            if usable(ev):
                self.calibration.add(cost_of(ev) - cost_of(p.chain.current[1]))
        self.t0 = self.calibration.t0(self.iteration)
        if self.t0 is not None:
            for c in self.chains:
                c.temperature.value = self.t0

    # -- accepting ---------------------------------------------------------------------------
    def _step(self, p: _Proposal) -> Record:
        chain = p.chain
        parent, parent_ev = chain.current
        temperature = chain.temperature.value
        rec: Record = {"type": "step", "chain": chain.index, "iteration": self.iteration,
                       "temperature": temperature, "move": p.move, "not_applicable": p.tried,
                       "parent": parent.key, "parent_digest": parent.candidate.digest,
                       "proposal": None, "proposal_digest": None, "verdict": "not-applicable",
                       "cost": None, "current_cost": parent_ev.cost, "best_cost": chain.best[1].cost,
                       "accepted": False, "improved": False, "reheated": False, "memo": False}
        improved = False
        if p.state is None or p.move is None:
            self.counters.not_applicable += 1
        else:
            improved = self._judge(p.chain, p.move, p.state, rec)
        reheated = chain.temperature.step(improved, self.t0, self.config)
        self.counters.reheats += int(reheated)
        rec["improved"], rec["reheated"] = improved, reheated
        rec["current_cost"] = chain.current[1].cost
        rec["best_cost"] = chain.best[1].cost
        rec["global_best_cost"] = self.best[1].cost
        return rec

    def _judge(self, chain: Chain, move: str, state: State, rec: Record) -> bool:
        """Accept or reject one evaluated proposal, credit its move; True when it improved the chain's best."""
        parent, parent_ev = chain.current
        key = memo_key(state, parent)
        ev = self.memo[key]
        st = self.stats[move]
        st.proposals += 1
        self.counters.proposals += 1
        rec.update(proposal=state.key, proposal_digest=state.candidate.digest, cost=ev.cost,
                   memo=key in self._memo_before)
        self.counters.memo_hits += int(rec["memo"])
        improved = False
        r = 0.0
        if not usable(ev):
            gate = ev.failed_gate or ("unscored" if ev.valid else "unknown")
            rec["verdict"] = f"invalid:{gate}"
            st.invalid += 1
            self.counters.invalid[gate] = self.counters.invalid.get(gate, 0) + 1
        else:
            st.valid += 1
            cost, parent_cost = cost_of(ev), cost_of(parent_ev)
            delta = cost - parent_cost
            # a recipe change to a netlist seen for this RTL: moving there at no gain re-synthesises known ones
            repeat = self.netlists.learn(chain.current, (state, ev), self.moves[move].kind == "recipe")
            prob = acceptance_probability(delta, chain.temperature.value)
            accept = (delta < 0 or not repeat) and (delta <= 0 or chain.rng.random() < prob)
            improved = cost < cost_of(chain.best[1])
            r = reward(True, parent_cost, cost, improved)
            no = "rejected:known-netlist" if repeat and delta >= 0 else "rejected"
            rec.update(verdict="accepted" if accept else no, accepted=accept, delta=delta, probability=prob)
            if accept:
                chain.current = (state, ev)
                st.accepted += 1
                self.counters.accepted += 1
            if improved:
                chain.best = (state, ev)
                st.improvements += 1
                self.counters.improvements += 1
                if cost < cost_of(self.best[1]):
                    self.best = (state, ev)
        st.credit += r
        rec["credit"] = r  # what the selector was given (the report charts it from the journal)
        self.selector.update(move, r)
        return improved

    # -- driving -----------------------------------------------------------------------------
    def iterate(self) -> None:
        """One iteration: propose for every chain, evaluate the new states together, accept/reject."""
        proposals = [self._propose(c) for c in self.chains]
        self._memo_before = set(self.memo)
        self._evaluate_new(proposals)
        self._calibrate(proposals)
        records = [self._step(p) for p in proposals]
        for rec in records:
            self.record(rec)
        self.iteration += 1
        self.counters.iterations = self.iteration
        self.history.append({
            "iteration": self.iteration, "best_cost": self.best[1].cost, "evaluations": self.counters.evaluations,
            "chains": [{"current_cost": c.current[1].cost, "best_cost": c.best[1].cost,
                        "temperature": c.temperature.value} for c in self.chains],
        })
        if self.progress is not None:
            temps = [c.temperature.value for c in self.chains if c.temperature.value is not None]
            self.progress({"iteration": self.iteration - 1, "iterations": self.config.iterations,
                           "best_cost": self.best[1].cost, "evaluations": self.counters.evaluations,
                           "temperature": max(temps) if temps else math.nan,
                           "temperatures": [c.temperature.value for c in self.chains],
                           "acceptance_rate": self.counters.accepted / max(1, self.counters.proposals)})

    def run(self) -> AnnealResult:
        while self.iteration < self.config.iterations:
            if self.should_stop is not None and self.should_stop():
                self.stopped = True
                break
            self.iterate()
        return self.result()

    def result(self) -> AnnealResult:
        weights = self.selector.probabilities()
        return AnnealResult(
            best=self.best, chain_best=[c.best for c in self.chains], pareto=list(self.pareto.entries),
            move_stats={n: s.to_dict() | {"weight": round(weights[n], 6)} for n, s in self.stats.items()},
            counters=self.counters.to_dict(), history=list(self.history), t0=self.t0,
            iterations_done=self.iteration, stopped=self.stopped, selector=self.selector.state_dict(),
        )


def anneal(starts: list[Scored], moves: list[Move], ctx_factory: ContextFactory, evaluate: Evaluate,
           config: Anneal, record: Callable[[Record], None], progress: Callable[[Record], None] | None = None,
           should_stop: Callable[[], bool] | None = None) -> AnnealResult:
    """Run the annealer (see the module docstring); ``starts`` are valid, scored Phase-1 states.

    ``ctx_factory(state, evaluation)`` builds the MoveContext for a chain's current state;
    ``evaluate([(proposal, parent), ...])`` returns one scored Evaluation per proposal, in order.
    """
    return Annealer(starts, moves, ctx_factory, evaluate, config, record, progress, should_stop).run()
