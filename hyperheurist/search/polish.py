"""The finish of an annealing run: a greedy descent from the best state over all of its neighbours.

Annealing samples one proposal per chain and iteration, so which single changes of the final best
it ever tried is left to chance: in a 4-seed sweep, fifo8 seed 2 ended at 0.935 with ``opt_full``
on, and turning it off (never proposed from there) gives 0.906. Polishing asks every non-LLM move
once about the best state, every value of every recipe knob the state's synthesis log does not rule
out (``knowledge.cannot_act``), evaluates what is not known yet in one batch (an RTL change is gated
and proven against the best, as in annealing), moves to the cheapest strictly better neighbour, and
repeats, at most ``anneal.polish`` rounds. No randomness beyond a generator seeded from the run's
seed, no acceptance of anything worse: a resumed run replays it exactly.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from .knowledge import cost_of, usable, where_inapplicable
from .state import Evaluation, State

if TYPE_CHECKING:
    from .annealer import Annealer


def neighbours(a: Annealer, rng: random.Random) -> list[tuple[str, State]]:
    """(move name, state) for every single change of ``a.best`` polishing may try, in move order."""
    state, ev = a.best
    ctx = a.ctx_factory(state, ev)
    out: list[tuple[str, State]] = []
    for name, move in a.moves.items():
        if move.kind == "llm":  # an endpoint call per round is not a finishing step
            continue
        if (name, where_inapplicable(move, state)) in a.know.inapplicable:
            continue
        every = getattr(move, "neighbours", None)
        if callable(every):
            options: list[State] = every(state, ctx, rng)
        else:
            one = move.propose(state, ctx, rng)
            options = [one] if one is not None else []
        out += [(name, s) for s in options if s.key != state.key]
    return out


def polish(a: Annealer) -> None:
    """At most ``a.config.polish`` rounds of steepest descent from ``a.best`` (see the module docstring)."""
    rng = random.Random(f"polish:{a.config.seed}")
    for n in range(a.config.polish):
        if a.should_stop is not None and a.should_stop():
            a.stopped = True
            return
        if not _round(a, rng, a.iteration + n):
            return


def _round(a: Annealer, rng: random.Random, iteration: int) -> bool:
    """One round (journalled as ``iteration``, after the annealing's); True when the best state moved."""
    parent, parent_ev = a.best
    options: list[tuple[str, State]] = []
    seen: set[str] = set()
    for name, s in neighbours(a, rng):
        if s.key in seen or not _worth_asking(a, name, parent, cost_of(parent_ev), s):
            continue
        seen.add(s.key)
        options.append((name, s))
    batch = [s for _, s in options if a.know.known(s, parent) is None]
    if batch:
        results = a.evaluate([(s, parent) for s in batch])
        for s, res in zip(batch, results, strict=True):
            a.know.record(s, parent, res)
            a.pareto.add(s, res)
        a.counters.evaluations += len(batch)
        a.counters.polish_evaluations += len(batch)
    fresh = {s.key for s in batch}
    outcomes = [(name, s, ev) for name, s in options if (ev := a.know.known(s, parent)) is not None]
    chosen: tuple[str, State, Evaluation] | None = None
    for o in outcomes:  # the cheapest strictly better neighbour; the first of equals
        if usable(o[2]) and cost_of(o[2]) < (cost_of(chosen[2]) if chosen else cost_of(parent_ev)):
            chosen = o
    for name, s, ev in outcomes:
        if s.key not in fresh:
            continue  # only what this round evaluated is journalled (a known outcome was judged before)
        a.record(_record(a, iteration, name, parent, s, ev, chosen is not None and chosen[1].key == s.key))
        _tally(a, name, usable(ev), ev.failed_gate)
    if chosen is None:
        return False
    name, s, ev = chosen
    if s.key not in fresh:  # the winner was known: its acceptance is journalled all the same
        a.record(_record(a, iteration, name, parent, s, ev, True))
    a.stats[name].accepted += 1
    a.stats[name].improvements += 1
    a.counters.polish_improvements += 1
    a.best = (s, ev)
    a.history.append({"iteration": iteration + 1, "best_cost": ev.cost,
                      "evaluations": a.counters.evaluations, "chains": [], "polish": True})
    return True


def _worth_asking(a: Annealer, move: str, parent: State, parent_cost: float, s: State) -> bool:
    """False when ``s`` cannot be an improvement on ``parent`` by what the run knows: judged and rejected from
    it, a recipe change predicted to give its netlist back, or a state whose cost (the same against any
    parent: PPA reads the state alone) is known and no lower."""
    if (parent.key, s.key) in a.know.rejected:
        return False
    if a.moves[move].kind == "recipe" and a.know.netlists.skip(parent, s):
        return False
    est = a.know.estimate(s)
    return est is None or cost_of(est) < parent_cost


def _record(a: Annealer, iteration: int, move: str, parent: State, s: State, ev: Evaluation,
            accepted: bool) -> dict[str, Any]:
    """A journal step record, as the annealer writes them (``chain`` None: no chain took this step)."""
    delta = cost_of(ev) - cost_of(a.best[1]) if usable(ev) else None
    verdict = ("accepted" if accepted else "rejected") if usable(ev) else f"invalid:{ev.failed_gate or 'unknown'}"
    return {"type": "step", "phase": "polish", "chain": None, "iteration": iteration, "temperature": 0.0,
            "move": move, "not_applicable": [], "parent": parent.key, "parent_digest": parent.candidate.digest,
            "proposal": s.key, "proposal_digest": s.candidate.digest, "verdict": verdict, "cost": ev.cost,
            "current_cost": a.best[1].cost, "best_cost": a.best[1].cost, "global_best_cost": a.best[1].cost,
            "accepted": accepted, "improved": accepted, "reheated": False, "restarted": False,
            "memo": False, "delta": delta}  # only what was not known is evaluated


def _tally(a: Annealer, move: str, valid: bool, gate: str | None) -> None:
    st = a.stats[move]
    st.proposals += 1
    a.counters.proposals += 1
    if valid:
        st.valid += 1
    else:
        st.invalid += 1
        g = gate or "unknown"
        a.counters.invalid[g] = a.counters.invalid.get(g, 0) + 1
