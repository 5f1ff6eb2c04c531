"""The finish of an annealing run: greedy descents over all of a state's neighbours.

Annealing samples one proposal per chain and iteration, so which single changes of a good state it ever
tried is left to chance: in a 4-seed sweep, fifo8 seed 2 ended at 0.935 with ``opt_full`` on, and turning it
off (never proposed from there) gives 0.906; div16 seed 3 ended at 0.665 on another seed's basin while two
recipe changes of the best Phase-1 seed give 0.628. A round asks every non-LLM move once about a state (every
value of every recipe knob its synthesis log does not rule out, ``knowledge.cannot_act``; up to six sites of
an RTL move), evaluates what is not known yet in one batch (an RTL change is gated and proven against that
state, as in annealing) and moves to the cheapest strictly better neighbour. Descents of at most
``anneal.polish`` rounds start from the best state, then from each chain's best and each start. Nothing
worse is ever accepted, and the only randomness is a generator seeded from the run's seed: a resumed run
replays it exactly.
"""

from __future__ import annotations

import random

from ..config import Anneal
from ..record.entries import StepRecord
from ..record.enums import StepVerdict
from .knowledge import Scored, cost_of, memo_key, usable, where_inapplicable
from .search_state import SearchState, judged, step_record
from .state import Evaluation, Move, MoveContext, State


def neighbours(a: SearchState, point: Scored, rng: random.Random) -> list[tuple[str, State]]:
    """(move name, state) for every single change of ``point`` polishing may try, in move order."""
    state, ev = point
    ctx = a.ctx_factory(state, ev)
    out: list[tuple[str, State]] = []
    for name, move in a.moves.items():
        if move.kind == "llm":  # an endpoint call per round is not a finishing step
            continue
        if (name, where_inapplicable(move, state)) in a.know.inapplicable:
            continue
        out += [(name, s) for s in options(move, state, ctx, rng) if s.key != state.key]
    return out


def options(move: Move, state: State, ctx: MoveContext, rng: random.Random) -> list[State]:
    """Every change of ``state`` that ``move`` offers: all its neighbours where it lists them, else its one
    proposal (none where it does not apply)."""
    every = getattr(move, "neighbours", None)
    if callable(every):
        found: list[State] = every(state, ctx, rng)
        return found
    one = move.propose(state, ctx, rng)
    return [one] if one is not None else []


def origins(best: Scored, others: list[Scored]) -> list[Scored]:
    """Where descents start: the best state, then ``others`` (each chain's best and each start), cheapest
    first (distinct)."""
    out: dict[str, Scored] = {}
    for se in [best, *sorted(others, key=lambda se: cost_of(se[1]))]:
        out.setdefault(se[0].key, se)
    return list(out.values())


def polish(a: SearchState, config: Anneal, starts: list[Scored]) -> None:
    """Steepest descents of at most ``config.polish`` rounds each, from the best state and then ``starts``
    (see the module docstring); a state one descent stood on is not descended from again."""
    if config.polish == 0:
        return
    rng = random.Random(f"polish:{config.seed}")
    stood: set[str] = set()
    iteration = a.iteration
    for point in origins(a.best, starts):
        for _ in range(config.polish):
            if a.stop_requested():
                return
            if point[0].key in stood:
                break
            stood.add(point[0].key)
            step = _round(a, rng, point, iteration)
            iteration += 1
            if step is None:
                break
            point = step


def _round(a: SearchState, rng: random.Random, point: Scored, iteration: int) -> Scored | None:
    """One round from ``point`` (journalled as ``iteration``, after the annealing's): the neighbour it moves
    to, or None when none is cheaper. A neighbour cheaper than the run's best becomes the best."""
    parent, parent_ev = point
    options: list[tuple[str, State]] = []
    seen: set[str] = set()
    for name, s in neighbours(a, point, rng):
        if s.key in seen or not _worth_asking(a, name, parent, cost_of(parent_ev), s):
            continue
        seen.add(s.key)
        options.append((name, s))
    batch = [s for _, s in options if a.know.known(s, parent) is None]
    a.evaluate_batch([(s, parent) for s in batch])
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
        a.record(_record(a, iteration, name, point, (s, ev), chosen is not None and chosen[1].key == s.key))
        a.tally(name, ev)
    if chosen is None:
        return None
    name, s, ev = chosen
    if s.key not in fresh:  # the winner was known: its acceptance is journalled all the same
        a.record(_record(a, iteration, name, point, (s, ev), True, known=True))
    a.stats[name].accepted += 1
    a.counters.polish_steps += 1
    if cost_of(ev) < cost_of(a.best[1]):
        a.stats[name].improvements += 1
        a.counters.polish_improvements += 1
        a.best = (s, ev)
        a.history.append({"iteration": iteration + 1, "best_cost": ev.cost,
                          "evaluations": a.counters.evaluations, "chains": [], "polish": True})
    return s, ev


def _worth_asking(a: SearchState, move: str, parent: State, parent_cost: float, s: State) -> bool:
    """False when ``s`` cannot be an improvement on ``parent`` by what the run knows: judged and rejected from
    it, a recipe change known to give its netlist back, or a state whose cost (the same against any parent:
    PPA reads the state alone) is known and no lower."""
    if (parent.key, s.key) in a.know.rejected:
        return False
    if a.moves[move].kind == "recipe" and a.know.netlists.gives_back(parent, s):
        return False  # known, not predicted: annealing's guess that a knob is inert missed mac16's delay target
    est = a.know.estimate(s)
    return est is None or cost_of(est) < parent_cost


def _record(a: SearchState, iteration: int, move: str, point: Scored, proposal: Scored,
            accepted: bool, known: bool = False) -> StepRecord:
    """A journal step of the greedy finish (``chain`` None: no chain took this step; ``known``: its
    evaluation was not this round's)."""
    parent, parent_ev = point
    s, ev = proposal
    best = a.best[1].cost
    rec = step_record(point, iteration, move, chain=None, temperature=0.0, best_cost=best, polish=True)
    judged(rec, proposal, memo=known, composed=known and memo_key(s, parent) in a.know.composed, unchecked=False)
    rec.global_best_cost, rec.restarted = best, False
    rec.delta = cost_of(ev) - cost_of(parent_ev) if usable(ev) else None
    if usable(ev):
        rec.verdict = StepVerdict.ACCEPTED if accepted else StepVerdict.REJECTED
    rec.accepted, rec.improved = accepted, accepted and cost_of(ev) < cost_of(a.best[1])
    return rec
