"""Multi-chain hyper-heuristic simulated annealing over (RTL, recipe) states. No tool I/O.

One iteration: every chain proposes one state (the selector picks a move; a move that does not
apply is skipped and another is tried), the batch of new proposals is evaluated together by the
caller's ``evaluate`` (which may parallelise it), then every chain accepts or rejects by the
Metropolis rule. All randomness comes from ``random.Random(config.seed)``; results never depend on
wall time or on the order a worker pool finishes, so replaying with memoised evaluations (resume)
follows exactly the same trajectory.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..config import Anneal
from ..errors import NoValidCandidate
from .pareto import ParetoArchive
from .selection import AdaptiveSelector, reward
from .state import Evaluation, Move, MoveContext, State

Evaluate = Callable[[list[tuple[State, State | None]]], list[Evaluation]]
ContextFactory = Callable[[State, Evaluation], MoveContext]
REHEAT_DECAY = 0.5  # each reheat of a chain restarts from half the previous reheat temperature
MAX_ATTEMPTS = 12  # moves tried per chain and iteration before the chain sits the iteration out
# automatic T0: uphill deltas gathered until this many are seen, or this many iterations passed with one
CALIBRATION_SAMPLES = 6
CALIBRATION_ITERATIONS = 4
INERT_GLOBAL = 2  # a knob whose changes left the netlist unchanged this often, and never changed it, is skipped


def acceptance_probability(delta: float, temperature: float | None) -> float:
    """Metropolis: 1 for a non-worsening move, exp(-delta/T) for an uphill one, 0 at T<=0."""
    if math.isnan(delta):
        return 0.0
    if delta <= 0:
        return 1.0
    if temperature is None or not temperature > 0:
        return 0.0
    return math.exp(-min(delta / temperature, 745.0))


def initial_temperature(uphill: Sequence[float]) -> float | None:
    """T0 accepting the median uphill delta with probability 0.5 (None without samples); the median, so
    one huge delta (a clock miss under the constrained objective) does not make the run a random walk."""
    ups = sorted(d for d in uphill if d > 0 and math.isfinite(d))
    if not ups:
        return None
    return statistics.median(ups) / math.log(2.0)


def _netlist(ev: Evaluation) -> str | None:  # the mapped netlist's structural digest (ppa/nethash.py)
    return ((ev.metrics or {}).get("details") or {}).get("netlist_digest")


def _change(old: State, new: State) -> str:
    """``knob=value`` for the recipe knobs ``new`` changes (one value may matter where another does not)."""
    a, b = old.recipe.to_dict(), new.recipe.to_dict()
    return ",".join(f"{k}={b[k]}" for k in sorted(b) if a.get(k) != b[k])


def _knobs(change: str) -> str:  # "fsm_encoding=binary" -> "fsm_encoding"
    return ",".join(kv.split("=", 1)[0] for kv in change.split(","))


def usable(ev: Evaluation) -> bool:
    """Only valid, scored evaluations may become current or best."""
    return ev.valid and ev.cost is not None and math.isfinite(ev.cost)


@dataclass
class MoveStats:
    proposals: int = 0
    valid: int = 0
    invalid: int = 0
    accepted: int = 0
    improvements: int = 0
    not_applicable: int = 0
    credit: float = 0.0

    def to_dict(self) -> dict:
        return {"proposals": self.proposals, "valid": self.valid, "invalid": self.invalid,
                "accepted": self.accepted, "improvements": self.improvements,
                "not_applicable": self.not_applicable, "credit": round(self.credit, 6)}


@dataclass
class Chain:
    index: int
    rng: random.Random
    current: tuple[State, Evaluation]
    best: tuple[State, Evaluation]
    temperature: float | None = None
    since_best: int = 0
    reheats: int = 0


@dataclass
class AnnealResult:
    best: tuple[State, Evaluation]
    chain_best: list[tuple[State, Evaluation]]
    pareto: list[tuple[State, Evaluation]]
    move_stats: dict[str, dict]  # {name: {proposals, valid, invalid, accepted, improvements, not_applicable, credit, weight}}
    counters: dict  # iterations, proposals, evaluations, memo_hits, accepted, improvements, reheats, invalid{gate: n}
    history: list[dict]  # one entry per iteration, for plotting
    t0: float | None
    iterations_done: int
    stopped: bool  # should_stop ended the run early
    selector: dict[str, float] = field(default_factory=dict)

    @property
    def invalid_by_gate(self) -> dict[str, int]:
        return dict(self.counters.get("invalid", {}))

    def to_dict(self) -> dict:
        s, e = self.best
        return {
            "best": {"key": s.key, "digest": s.candidate.digest, "cost": e.cost, "metrics": e.metrics,
                     "recipe": s.recipe.to_dict()},
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

    def __init__(self, starts: list[tuple[State, Evaluation]], moves: list[Move], ctx_factory: ContextFactory,
                 evaluate: Evaluate, config: Anneal, record: Callable[[dict], None],
                 progress: Callable[[dict], None] | None = None,
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
        # (RTL digest, knob=value) changes that left the mapped netlist unchanged (re-proposing = re-synthesis)
        self.inert: set[tuple[str, str]] = set()
        self.netlists: dict[str, set[str]] = {}  # RTL digest -> mapped netlists seen for it
        # per knob, how often a change of it left the netlist unchanged / changed it (over all RTL)
        self.knob_inert: dict[str, int] = {}
        self.knob_live: dict[str, int] = {}
        self._memo_before: set[str] = set()
        self.pareto = ParetoArchive()
        for s, e in starts:
            if (start_net := _netlist(e)) is not None:
                self.netlists.setdefault(s.candidate.digest, set()).add(start_net)
            self.memo.setdefault(s.key, e)
            self.pareto.add(s, e)
        self.chains = [Chain(i, random.Random(master.getrandbits(64)), valid[i % len(valid)],
                             valid[i % len(valid)]) for i in range(config.chains)]
        self.best = min(valid, key=lambda se: se[1].cost)  # min() keeps the first of equals
        self.t0 = config.t0
        self._uphill: list[float] = []  # deltas seen before an automatic T0 is fixed
        for c in self.chains:
            c.temperature = self.t0
        self.counters: dict = {"iterations": 0, "proposals": 0, "evaluations": 0, "memo_hits": 0,
                               "accepted": 0, "improvements": 0, "not_applicable": 0, "reheats": 0,
                               "inert_skips": 0, "invalid": {}}
        self.history: list[dict] = []
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
            if new is not None and self.moves[name].kind == "recipe" and self._inert(state.candidate.digest,
                                                                                      _change(state, new)):
                self.counters["inert_skips"] += 1
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
            if p.state is None or p.state.key in self.memo or p.state.key in seen:
                continue
            seen.add(p.state.key)
            batch.append((p.state, p.chain.current[0]))
        if not batch:
            return
        results = self.evaluate(batch)
        if len(results) != len(batch):
            raise ValueError(f"evaluate returned {len(results)} evaluations for {len(batch)} states")
        for (s, _), ev in zip(batch, results):
            if ev.key != s.key:
                raise ValueError(f"evaluate returned key {ev.key} for state {s.key}")
            self.memo[s.key] = ev
            self.pareto.add(s, ev)
        self.counters["evaluations"] += len(batch)

    def _calibrate(self, proposals: list[_Proposal]) -> None:
        """Automatic T0 from CALIBRATION_SAMPLES uphill deltas, or what CALIBRATION_ITERATIONS showed (one
        iteration's 1-2 samples were too few). Until then chains descend greedily (uphill never accepted)."""
        if self.t0 is not None:
            return
        for p in proposals:
            if p.state is not None and usable(self.memo[p.state.key]):
                d = self.memo[p.state.key].cost - p.chain.current[1].cost
                if d > 0 and math.isfinite(d):
                    self._uphill.append(d)
        if len(self._uphill) < CALIBRATION_SAMPLES and self.iteration + 1 < CALIBRATION_ITERATIONS:
            return
        t0 = initial_temperature(self._uphill)
        if t0 is not None:
            self.t0 = max(t0, self.config.t_min)
            for c in self.chains:
                c.temperature = self.t0

    def _inert(self, rtl: str, change: str) -> bool:
        """This knob=value change left this RTL's netlist unchanged, or its knob never changed one so far."""
        k = _knobs(change)
        return (rtl, change) in self.inert or (
            self.knob_inert.get(k, 0) >= INERT_GLOBAL and not self.knob_live.get(k, 0))

    # -- accepting ---------------------------------------------------------------------------
    def _step(self, p: _Proposal) -> dict:
        chain = p.chain
        parent, parent_ev = chain.current
        temperature = chain.temperature
        rec: dict = {"type": "step", "chain": chain.index, "iteration": self.iteration,
                     "temperature": temperature, "move": p.move, "not_applicable": p.tried,
                     "parent": parent.key, "parent_digest": parent.candidate.digest,
                     "proposal": None, "proposal_digest": None, "verdict": "not-applicable",
                     "cost": None, "current_cost": parent_ev.cost, "best_cost": chain.best[1].cost,
                     "accepted": False, "improved": False, "reheated": False, "memo": False}
        improved = False
        if p.state is None:
            self.counters["not_applicable"] += 1
        else:
            ev = self.memo[p.state.key]
            st = self.stats[p.move]
            st.proposals += 1
            self.counters["proposals"] += 1
            rec.update(proposal=p.state.key, proposal_digest=p.state.candidate.digest, cost=ev.cost,
                       memo=ev.key in self._memo_before)
            if rec["memo"]:
                self.counters["memo_hits"] += 1
            if not usable(ev):
                gate = ev.failed_gate or ("unscored" if ev.valid else "unknown")
                rec["verdict"] = f"invalid:{gate}"
                st.invalid += 1
                self.counters["invalid"][gate] = self.counters["invalid"].get(gate, 0) + 1
                r = 0.0
            else:
                st.valid += 1
                delta = ev.cost - parent_ev.cost
                net, rtl = _netlist(ev), parent.candidate.digest
                # recipe change to a netlist seen for this RTL: moving there at no gain re-synthesises known ones
                repeat = self.moves[p.move].kind == "recipe" and net is not None and net in self.netlists.get(rtl, ())
                change = _change(parent, p.state)
                if repeat and net == _netlist(parent_ev):
                    self.inert.add((rtl, change))
                if self.moves[p.move].kind == "recipe" and net is not None:
                    counts = self.knob_inert if net == _netlist(parent_ev) else self.knob_live
                    counts[_knobs(change)] = counts.get(_knobs(change), 0) + 1
                prob = acceptance_probability(delta, temperature)
                accept = (delta < 0 or not repeat) and (delta <= 0 or chain.rng.random() < prob)
                if net is not None:
                    self.netlists.setdefault(p.state.candidate.digest, set()).add(net)
                improved = ev.cost < chain.best[1].cost
                r = reward(True, parent_ev.cost, ev.cost, improved)
                no = "rejected:known-netlist" if repeat and delta >= 0 else "rejected"
                rec.update(verdict="accepted" if accept else no, accepted=accept, delta=delta, probability=prob)
                if accept:
                    chain.current = (p.state, ev)
                    st.accepted += 1
                    self.counters["accepted"] += 1
                if improved:
                    chain.best = (p.state, ev)
                    st.improvements += 1
                    self.counters["improvements"] += 1
                    if ev.cost < self.best[1].cost:
                        self.best = (p.state, ev)
            st.credit += r
            rec["credit"] = r  # what the selector was given (the report charts it from the journal)
            self.selector.update(p.move, r)
        rec["improved"] = improved
        rec["reheated"] = self._schedule(chain, improved)
        rec["current_cost"] = chain.current[1].cost
        rec["best_cost"] = chain.best[1].cost
        rec["global_best_cost"] = self.best[1].cost
        return rec

    def _schedule(self, chain: Chain, improved: bool) -> bool:
        """Cool geometrically; reheat after ``reheat_after`` iterations without a new chain best."""
        chain.since_best = 0 if improved else chain.since_best + 1
        if chain.temperature is None or self.t0 is None:
            return False
        if chain.since_best >= self.config.reheat_after:
            chain.since_best = 0
            level = self.t0 * REHEAT_DECAY ** chain.reheats
            chain.reheats += 1
            self.counters["reheats"] += 1
            chain.temperature = max(chain.temperature, level, self.config.t_min)
            return True
        chain.temperature = max(self.config.t_min, chain.temperature * self.config.cooling)
        return False

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
        self.counters["iterations"] = self.iteration
        self.history.append({
            "iteration": self.iteration, "best_cost": self.best[1].cost,
            "evaluations": self.counters["evaluations"],
            "chains": [{"current_cost": c.current[1].cost, "best_cost": c.best[1].cost,
                        "temperature": c.temperature} for c in self.chains],
        })
        if self.progress is not None:
            temps = [c.temperature for c in self.chains if c.temperature is not None]
            self.progress({"iteration": self.iteration - 1, "iterations": self.config.iterations,
                           "best_cost": self.best[1].cost, "evaluations": self.counters["evaluations"],
                           "temperature": max(temps) if temps else math.nan,
                           "temperatures": [c.temperature for c in self.chains],
                           "acceptance_rate": self.counters["accepted"] / max(1, self.counters["proposals"])})

    def run(self) -> AnnealResult:
        while self.iteration < self.config.iterations:
            if self.should_stop is not None and self.should_stop():
                self.stopped = True
                break
            self.iterate()
        return self.result()

    def result(self) -> AnnealResult:
        return AnnealResult(
            best=self.best, chain_best=[c.best for c in self.chains], pareto=list(self.pareto.entries),
            move_stats={n: s.to_dict() | {"weight": round(w, 6)} for (n, s), w in
                        zip(self.stats.items(), self.selector.probabilities().values())},
            counters={**self.counters, "invalid": dict(sorted(self.counters["invalid"].items()))},
            history=list(self.history), t0=self.t0, iterations_done=self.iteration, stopped=self.stopped,
            selector=self.selector.state_dict(),
        )


def anneal(starts: list[tuple[State, Evaluation]], moves: list[Move], ctx_factory: ContextFactory,
           evaluate: Evaluate, config: Anneal, record: Callable[[dict], None],
           progress: Callable[[dict], None] | None = None,
           should_stop: Callable[[], bool] | None = None) -> AnnealResult:
    """Run the annealer (see the module docstring); ``starts`` are valid, scored Phase-1 states.

    ``ctx_factory(state, evaluation)`` builds the MoveContext for a chain's current state;
    ``evaluate([(proposal, parent), ...])`` returns one scored Evaluation per proposal, in order.
    """
    return Annealer(starts, moves, ctx_factory, evaluate, config, record, progress, should_stop).run()
