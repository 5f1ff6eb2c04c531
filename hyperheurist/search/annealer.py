"""Multi-chain hyper-heuristic simulated annealing over (RTL, recipe) states. No tool I/O.

One iteration: every chain proposes one state (the selector picks a move; a move that does not
apply is skipped and another is tried), the batch of new proposals is evaluated together by the
caller's ``evaluate`` (which may parallelise it), then every chain accepts or rejects by the
Metropolis rule. All randomness comes from ``random.Random(config.seed)``; results never depend on wall time
or on the order a worker pool finishes, so replaying with memoised evaluations (resume) follows exactly the same
trajectory. Temperatures: ``schedule.py``; knobs and netlists: ``netlists.py``; the greedy finish: ``polish.py``."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypedDict

from ..config import Anneal
from ..errors import NoValidCandidate
from ..record.entries import StepRecord
from ..record.enums import StepVerdict
from .knowledge import Scored, cost_of, failed_gate, memo_key, place, usable, where_inapplicable
from .pareto import ParetoArchive
from .polish import polish
from .schedule import Calibration, Temperature, acceptance_probability
from .search_state import ContextFactory, Evaluate, HistoryPoint, SearchState, judged, step_record
from .selection import AdaptiveSelector, reward
from .state import Evaluation, Move, MoveContext, State, finishing
from .tally import MoveStats


class Progress(TypedDict):
    """What the progress display is told after each iteration."""

    iteration: int  # from 0
    iterations: int  # planned
    best_cost: float | None
    evaluations: int
    temperature: float  # the hottest chain's (nan before calibration)
    temperatures: list[float | None]  # per chain
    acceptance_rate: float


@dataclass
class Chain:
    index: int
    rng: random.Random
    current: Scored
    best: Scored
    held: set[str] = field(default_factory=set)  # keys of the states this chain has stood on
    temperature: Temperature = field(default_factory=Temperature)


@dataclass
class AnnealResult:
    best: Scored
    chain_best: list[Scored]
    pareto: list[Scored]
    move_stats: dict[str, dict[str, float]]  # name -> MoveStats fields and the selector's weight
    counters: dict[str, int | dict[str, int]]  # Counters.to_dict()
    history: list[HistoryPoint]  # one entry per iteration, for plotting
    t0: float | None
    iterations_done: int
    stopped: bool  # should_stop ended the run early
    selector: dict[str, float] = field(default_factory=dict)

    @property
    def invalid_by_gate(self) -> dict[str, int]:
        invalid = self.counters.get("invalid", {})
        return dict(invalid) if isinstance(invalid, dict) else {}

    def to_dict(self) -> dict[str, object]:
        s, e = self.best
        return {
            "best": {"key": s.key, "digest": s.candidate.digest, "cost": e.cost,
                     "metrics": e.metrics.to_dict() if e.metrics is not None else None, "recipe": s.recipe.to_dict()},
            "chain_best": [{"key": cs.key, "cost": ce.cost} for cs, ce in self.chain_best],
            "pareto": ParetoArchive(list(self.pareto)).points(),
            "moves": self.move_stats, "counters": self.counters, "history": self.history, "t0": self.t0,
            "iterations_done": self.iterations_done, "stopped": self.stopped, "selector": self.selector}


@dataclass
class _Proposal:
    chain: Chain
    move: str | None
    state: State | None
    tried: list[str]
    draw: float | None = None  # the Metropolis draw, when it was made before evaluating
    unchecked: Evaluation | None = None  # a known estimate the draw rejected: nothing to evaluate


def static_context(ctx: MoveContext) -> ContextFactory:
    """A context factory that hands every move the same context with the current state's metrics."""

    def make(state: State, ev: Evaluation) -> MoveContext:
        return MoveContext(design=ctx.design, flow=ctx.flow, metrics=ev.metrics, llm=ctx.llm)

    return make


class Annealer:
    """The state of one annealing run; ``run`` drives it. Use ``anneal`` unless you need the parts."""

    def __init__(self, starts: list[Scored], moves: list[Move], ctx_factory: ContextFactory,
                 evaluate: Evaluate, config: Anneal, record: Callable[[StepRecord], None],
                 progress: Callable[[Progress], None] | None = None,
                 should_stop: Callable[[], bool] | None = None) -> None:
        valid = [(s, e) for s, e in starts if usable(e)]
        if not valid:
            raise NoValidCandidate("annealing needs at least one valid, scored start state")
        if not moves:
            raise ValueError("annealing needs at least one move")
        by_name = {m.name: m for m in moves}
        if len(by_name) != len(moves):
            raise ValueError("move names must be unique")
        self.config, self.progress = config, progress
        self.state = SearchState(by_name, ctx_factory, evaluate, record, min(valid, key=lambda se: cost_of(se[1])),
                                 should_stop, stats={m.name: MoveStats() for m in moves})
        self.moves, self.know, self.stats = self.state.moves, self.state.know, self.state.stats
        self.counters, self.pareto = self.state.counters, self.state.pareto
        master = random.Random(config.seed)
        self.selector = AdaptiveSelector([m.name for m in moves])
        self._memo_before: set[str] = set()
        for s, e in starts:
            self.know.record(s, None, e)
            self.pareto.add(s, e)
        # the chains start from the cheapest starts (stable: equals keep their order): the search is there
        # to improve on the best Phase-1 answer, and a chain on the worst seed spent the run behind it
        self.ranked = sorted(valid, key=lambda se: cost_of(se[1]))  # the starts, cheapest first
        firsts = [self.ranked[i % len(self.ranked)] for i in range(config.chains)]
        self.chains = [Chain(i, random.Random(master.getrandbits(64)), f, f, {f[0].key}) for i, f in enumerate(firsts)]
        self.t0 = config.t0
        self.calibration = Calibration(config.t_min, [])  # deltas seen before an automatic T0 is fixed
        for c in self.chains:
            c.temperature.value = self.t0

    # -- proposing ---------------------------------------------------------------------------
    def _propose(self, chain: Chain) -> _Proposal:
        """One new state for the chain. Moves known to find nothing to do on this state are not asked (not
        applying earns no blame, so a move that fits few designs keeps its share where it fits). A
        proposal known to give the parent's netlist back, or known and certain to be rejected, is passed
        over for another move: it would spend the chain's iteration on nothing."""
        state, ev = chain.current
        ctx = self.state.ctx_factory(state, ev)
        tried: list[str] = []
        known = [n for n, m in self.moves.items() if (n, where_inapplicable(m, state)) in self.know.inapplicable]
        # every move may be asked (a cap of 12 sat chains out on states whose RTL moves were all still unasked)
        for _ in range(len(self.moves)):
            name = self.selector.choose(chain.rng, exclude=tried + known)
            if name is None:
                break
            tried.append(name)
            move = self.moves[name]
            new = None
            if finishing(move):  # an applicable rewrite goes first: the finishing move would hide its site
                earlier = self._rewrite_first(state, ctx, chain.rng, tried)
                if earlier is not None:  # the draw passes to the rewrite: it spends the finishing move's optimism
                    self.selector.update(name, 0.0)
                    tried[-1] = earlier[0]
                    name, new = earlier
                    move = self.moves[name]
            if new is None:
                new = move.propose(state, ctx, chain.rng)
            if new is None or new.key == state.key:
                if move.kind != "llm":  # an LLM may answer another time; a deterministic transform will not
                    self.know.inapplicable.add((name, where_inapplicable(move, state)))
                self.stats[name].not_applicable += 1
                continue
            self.know.netlists.adopt(new, state)
            # a proposal known to be useless earns the move what its evaluation would have: nothing
            if move.kind == "recipe" and self.know.netlists.skip(state, new):
                self.counters.inert_skips += 1
                self.stats[name].not_applicable += 1
                self.selector.update(name, 0.0)
                continue
            if self.know.certain_rejection(chain.current, move.kind == "recipe", new, chain.held):
                self.counters.known_skips += 1
                self.selector.update(name, 0.0)
                continue
            if move.kind == "recipe":
                self.know.netlists.ask(state, new)
            return self._draw_early(_Proposal(chain, name, new, tried[:-1]))
        if len(set(tried + known)) == len(self.moves):  # every move was asked and had nothing useful here
            self.know.exhausted.add(state.key)
        return _Proposal(chain, None, None, tried)

    def _rewrite_first(self, state: State, ctx: MoveContext, rng: random.Random,
                       tried: list[str]) -> tuple[str, State] | None:
        """A non-finishing RTL move with a proposal here, drawn by the selector among them (registry order
        let the first one listed take every deferred draw, valid or not); those without one are remembered
        inapplicable."""
        rewrites = {n for n, m in self.moves.items() if m.kind == "rtl" and not finishing(m) and n not in tried
                    and (n, where_inapplicable(m, state)) not in self.know.inapplicable}
        while rewrites:
            name = self.selector.choose(rng, exclude=[n for n in self.moves if n not in rewrites])
            if name is None:
                break
            rewrites.discard(name)
            new = self.moves[name].propose(state, ctx, rng)
            if new is not None and new.key != state.key:
                return name, new
            self.know.inapplicable.add((name, where_inapplicable(self.moves[name], state)))
            self.stats[name].not_applicable += 1
        return None

    def _draw_early(self, p: _Proposal) -> _Proposal:
        """An RTL change to a state already estimated elsewhere has a known cost: the Metropolis draw is
        made now, and only a change it accepts is checked against the parent (a rejected one needs no
        gates). The draw is the one ``_judge`` would make, from the same chain's stream, in the same order."""
        assert p.state is not None
        parent, parent_ev = p.chain.current
        if p.state.candidate.digest == parent.candidate.digest or self.know.known(p.state, parent) is not None:
            return p
        est = self.know.estimate(p.state)
        if est is None or cost_of(est) <= cost_of(parent_ev):
            return p
        p.draw = p.chain.rng.random()
        if p.draw >= acceptance_probability(cost_of(est) - cost_of(parent_ev), p.chain.temperature.value):
            p.unchecked = est
        return p

    def _evaluate_new(self, proposals: list[_Proposal]) -> None:
        batch: list[tuple[State, State | None]] = []
        seen: set[str] = set()
        for p in proposals:
            if p.state is None or p.unchecked is not None:
                continue
            key = memo_key(p.state, p.chain.current[0])
            if key in self.know.memo or key in seen:
                continue
            if self.know.settle(p.state, p.chain.current[0]):
                self.counters.verdict_reuse += 1
                continue
            seen.add(key)
            batch.append((p.state, p.chain.current[0]))
        self.state.evaluate_batch(batch)

    def _outcome(self, p: _Proposal) -> Evaluation:
        assert p.state is not None
        return p.unchecked or self.know.memo[memo_key(p.state, p.chain.current[0])]

    def _calibrate(self, proposals: list[_Proposal]) -> None:
        """Automatic T0 (``schedule.Calibration``); until then chains descend greedily."""
        if self.t0 is not None:
            return
        for p in proposals:
            if p.state is None:
                continue
            ev = self._outcome(p)
            if usable(ev):
                self.calibration.add(cost_of(ev) - cost_of(p.chain.current[1]))
        self.t0 = self.calibration.t0(self.state.iteration)
        if self.t0 is not None:
            for c in self.chains:
                c.temperature.value = self.t0

    # -- accepting ---------------------------------------------------------------------------
    def _step(self, p: _Proposal) -> StepRecord:
        chain = p.chain
        rec = step_record(chain.current, self.state.iteration, p.move, chain=chain.index,
                          temperature=chain.temperature.value, best_cost=chain.best[1].cost, not_applicable=p.tried)
        improved = p.state is not None and p.move is not None and self._judge(p, p.move, p.state, rec)
        self.counters.not_applicable += int(p.state is None or p.move is None)
        by_cost = {StepVerdict.ACCEPTED: True, StepVerdict.REJECTED: False}.get(rec.verdict)  # the temperature decided
        reheated = chain.temperature.step(improved, self.t0, self.config, by_cost,
                                          self.state.iteration / max(1, self.config.iterations))
        self.counters.reheats += int(reheated)
        restarted = self._restart(chain, idle=p.state is None, reheated=reheated)
        rec.improved, rec.reheated, rec.restarted = improved, reheated, restarted
        rec.current_cost, rec.best_cost = chain.current[1].cost, chain.best[1].cost
        rec.global_best_cost = self.state.best[1].cost
        return rec

    def _restart(self, chain: Chain, idle: bool, reheated: bool) -> bool:
        """A chain stuck on a worse region than another found (reheated) goes on from the best state; one
        with nothing left to propose goes on from the cheapest valid state no chain holds or exhausted."""
        target = self.state.best if reheated and cost_of(chain.best[1]) > cost_of(self.state.best[1]) else None
        if idle and target is None:
            target = self.know.restart_from({place(*c.current) for c in self.chains})
        if target is None or target[0].key == chain.current[0].key:
            return False
        chain.current = target
        chain.held.add(target[0].key)
        if cost_of(target[1]) < cost_of(chain.best[1]):
            chain.best = target
        self.counters.restarts += 1
        return True

    def _judge(self, p: _Proposal, move: str, state: State, rec: StepRecord) -> bool:
        """Accept or reject one evaluated proposal, credit its move; True when it improved the chain's best."""
        chain = p.chain
        parent, parent_ev = chain.current
        key = memo_key(state, parent)
        ev = self._outcome(p)
        st = self.stats[move]
        st.proposals += 1
        self.counters.proposals += 1
        judged(rec, (state, ev), memo=key in self._memo_before, composed=key in self.know.composed,
               unchecked=p.unchecked is not None)
        self.counters.memo_hits += int(rec.memo)
        improved, r = False, 0.0
        if p.unchecked is not None:  # rejected on its known cost before any check: neither valid nor invalid
            delta = cost_of(ev) - cost_of(parent_ev)
            rec.verdict, rec.delta = StepVerdict.REJECTED_UNCHECKED, delta
            rec.probability = acceptance_probability(delta, chain.temperature.value)
        elif not usable(ev):  # ``judged`` wrote the verdict
            gate = failed_gate(ev)
            st.invalid += 1
            self.counters.invalid[gate] = self.counters.invalid.get(gate, 0) + 1
        else:
            st.valid += 1
            cost, parent_cost = cost_of(ev), cost_of(parent_ev)
            delta = cost - parent_cost
            # a recipe change to a netlist seen for this RTL: moving there at no gain re-synthesises known ones
            repeat = self.know.netlists.learn(chain.current, (state, ev), self.moves[move].kind == "recipe")
            prob = acceptance_probability(delta, chain.temperature.value)
            allowed = delta < 0 or not repeat
            if allowed and delta > 0 and p.draw is None:
                p.draw = chain.rng.random()
            accept = allowed and (delta <= 0 or (p.draw is not None and p.draw < prob))
            improved = cost < cost_of(chain.best[1])
            r = reward(True, parent_cost, cost, improved)
            no = StepVerdict.REJECTED_KNOWN_NETLIST if repeat and delta >= 0 else StepVerdict.REJECTED
            rec.verdict = StepVerdict.ACCEPTED if accept else no
            rec.accepted, rec.delta, rec.probability = accept, delta, prob
            if accept:
                chain.current = (state, ev)
                chain.held.add(state.key)
                st.accepted += 1
                self.counters.accepted += 1
            if improved:
                chain.best = (state, ev)
                st.improvements += 1
                self.counters.improvements += 1
                if cost < cost_of(self.state.best[1]):
                    self.state.best = (state, ev)
        if not rec.accepted:  # tabu from this parent (``Knowledge.rejected``)
            self.know.rejected.add((parent.key, state.key))
        st.credit += r
        rec.credit = r  # what the selector was given (the report charts it from the journal)
        self.selector.update(move, r, valid=None if p.unchecked is not None else usable(ev))
        return improved

    # -- driving -----------------------------------------------------------------------------
    def iterate(self) -> None:
        """One iteration: propose for every chain, evaluate the new states together, accept/reject."""
        self.know.netlists.asking.clear()
        proposals = [self._propose(c) for c in self.chains]
        self._memo_before = set(self.know.memo)
        self._evaluate_new(proposals)
        self._calibrate(proposals)
        records = [self._step(p) for p in proposals]
        for rec in records:
            self.state.record(rec)
        self.state.iteration += 1
        self.counters.iterations = self.state.iteration
        self.state.history.append({
            "iteration": self.state.iteration, "best_cost": self.state.best[1].cost,
            "evaluations": self.counters.evaluations,
            "chains": [{"current_cost": c.current[1].cost, "best_cost": c.best[1].cost,
                        "temperature": c.temperature.value} for c in self.chains],
        })
        if self.progress is not None:
            temps = [c.temperature.value for c in self.chains if c.temperature.value is not None]
            self.progress(Progress(iteration=self.state.iteration - 1, iterations=self.config.iterations,
                                   best_cost=self.state.best[1].cost, evaluations=self.counters.evaluations,
                                   temperature=max(temps) if temps else math.nan,
                                   temperatures=[c.temperature.value for c in self.chains],
                                   acceptance_rate=self.counters.accepted / max(1, self.counters.proposals)))

    def run(self) -> AnnealResult:
        while self.state.iteration < self.config.iterations:
            if self.state.stop_requested():
                break
            self.iterate()
        if not self.state.stopped:
            polish(self.state, self.config, [c.best for c in self.chains] + self.ranked)
        return self.result()

    def result(self) -> AnnealResult:
        weights = self.selector.probabilities()
        return AnnealResult(
            best=self.state.best, chain_best=[c.best for c in self.chains], pareto=list(self.pareto.entries),
            move_stats={n: s.to_dict() | {"weight": round(weights[n], 6)} for n, s in self.stats.items()},
            counters=self.counters.to_dict(), history=list(self.state.history), t0=self.t0,
            iterations_done=self.state.iteration, stopped=self.state.stopped, selector=self.selector.state_dict())


def anneal(starts: list[Scored], moves: list[Move], ctx_factory: ContextFactory, evaluate: Evaluate,
           config: Anneal, record: Callable[[StepRecord], None], progress: Callable[[Progress], None] | None = None,
           should_stop: Callable[[], bool] | None = None) -> AnnealResult:
    """Run the annealer (see the module docstring); ``starts`` are valid, scored Phase-1 states.
    ``ctx_factory(state, evaluation)`` builds the MoveContext for a chain's current state;
    ``evaluate([(proposal, parent), ...])`` returns one scored Evaluation per proposal, in order."""
    return Annealer(starts, moves, ctx_factory, evaluate, config, record, progress, should_stop).run()
