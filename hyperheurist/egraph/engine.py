"""Optimise word-level terms: saturate an egglog e-graph with the rules, extract the cheapest DAG.

Saturation runs one iteration at a time so the iteration and node limits are checked in between;
an iteration that takes the e-graph over the node limit is undone (a 40-term sum under associativity
grows twentyfold in one iteration), so extraction reads a bounded e-graph. Extraction is ``extract``'s,
bounded by a number of trials. No limit is wall time: the same input gives the same result on a
loaded machine as on an idle one (a run must not depend on scheduling). The result is the input
itself unless the extracted DAG is strictly cheaper; terms deeper than ``MAX_DEPTH`` are returned as
they are (the encoder and the extractor recurse).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from egglog import bindings

from hyperheurist.egraph.encode import Encoded, declarations, encode
from hyperheurist.egraph.extract import best_choice, build
from hyperheurist.egraph.graph import Graph, load
from hyperheurist.egraph.ir import Term
from hyperheurist.egraph.provenance import credited, postorder
from hyperheurist.egraph.rules import RULES, Rule

NodeCost = Callable[[Term], float]
MAX_DEPTH = 400
RULESET, SIMPLIFY = "hh", "hh_simplify"
TRIALS = 20_000  # extraction's local-search changes tried (about 1-3 s on the largest e-graphs)
SIMPLIFY_ROUNDS = 8  # each simplification hides a node and makes at most one; a bound all the same
# Each iteration first runs the simplifications (rules that hide their left side), so a node they hide
# never feeds the other rules: 0*e, made by commutativity in one iteration, would otherwise meet
# associativity in the next as a member of the class of 0 and grow e*e, e*e*e, ... (egglog 13.2's
# back-off scheduler matches hidden nodes, so it is not used: the node limit rolls an iteration back)
STEP = (
    f"(run-schedule (repeat {SIMPLIFY_ROUNDS} (run {SIMPLIFY})) (run {RULESET}) "
    f"(repeat {SIMPLIFY_ROUNDS} (run {SIMPLIFY})))"
)


@dataclass(frozen=True)
class Optimised:
    terms: dict[str, Term]  # the extracted best term for each root name (same width as the root)
    cost_before: float  # DAG cost of the input roots under `cost` (shared nodes counted once)
    cost_after: float  # DAG cost of the extracted roots
    rules_fired: tuple[str, ...]  # rules the result owes to (``provenance``, best effort; for the journal)


@dataclass(frozen=True)
class Saturation:
    graph: Graph
    roots: dict[str, int]  # root name -> e-class
    matches: dict[str, int]  # rule name -> matches applied, over all iterations
    iterations: int
    stop: str  # saturated | iterations | node-limit
    seconds: float


def _run(eg: bindings.EGraph, program: str) -> list[object]:
    return list(eg.run_program(*eg.parse_program(program)))


def _template(rules: tuple[Rule, ...]) -> bindings.EGraph:
    eg = bindings.EGraph()
    text = "\n".join(r.egglog(SIMPLIFY if r.subsume else RULESET) for r in rules)
    _run(eg, f"{declarations()}(ruleset {RULESET})\n(ruleset {SIMPLIFY})\n{text}\n")
    return eg


class _Kept(threading.local):
    egraph: bindings.EGraph | None = None


# Declaring the rules costs more than a small saturation, so the default rules' e-graph is kept and each
# call works between (push) and (pop); the serialization after a pop is identical to a fresh e-graph's.
# One per thread: egglog's EGraph may only be used by the thread that made it (pyo3 raises otherwise).
_KEPT = _Kept()


@contextmanager
def _egraph(rules: tuple[Rule, ...]) -> Iterator[bindings.EGraph]:
    if rules != RULES:
        yield _template(rules)
        return
    if _KEPT.egraph is None:
        _KEPT.egraph = _template(RULES)
    eg = _KEPT.egraph
    _run(eg, "(push)")
    try:
        yield eg
    finally:
        _run(eg, "(pop)")


def saturate(
    roots: dict[str, Term],
    rules: Iterable[Rule] = RULES,
    *,
    iterations: int = 12,
    node_limit: int = 20_000,
) -> Saturation:
    """Run the rules over the roots until saturation or a limit, and read the e-graph back."""
    start = time.monotonic()
    enc = encode(roots)
    with _egraph(tuple(rules)) as eg:
        return _saturate(eg, enc, start, iterations, node_limit)


def _saturate(eg: bindings.EGraph, enc: Encoded, start: float, iterations: int, node_limit: int) -> Saturation:
    """Iterate; an iteration that takes the e-graph over the node limit is undone ((push) before each,
    (pop) to undo), so extraction never reads more than ``node_limit`` nodes."""
    _run(eg, enc.program)
    matches: dict[str, int] = {}
    done, stop, pushed = 0, "iterations", 0
    try:
        while done < iterations:
            _run(eg, "(push)")
            pushed += 1
            out = _run(eg, STEP)[-1]
            assert isinstance(out, bindings.RunScheduleOutput)
            if not out.report.updated:
                stop = "saturated"
                break
            size = _run(eg, "(print-size)")[-1]
            assert isinstance(size, bindings.PrintAllFunctionsSize)
            if sum(n for _, n in size.sizes) > node_limit:
                _run(eg, "(pop)")
                pushed -= 1
                stop = "node-limit"
                break
            done += 1
            for name, count in out.report.num_matches_per_rule.items():
                matches[name] = matches.get(name, 0) + count
        graph = load(eg.serialize([]).to_json(), enc.names, enc.bigs)
    finally:
        for _ in range(pushed):
            _run(eg, "(pop)")
    classes = {name: graph.roots[index] for name, index in enc.roots.items()}
    return Saturation(graph, classes, matches, done, stop, time.monotonic() - start)


def dag_cost(roots: dict[str, Term], cost: NodeCost) -> float:
    """The roots' cost with every structurally distinct node counted once."""
    ids: dict[int, int] = {}  # id(term) -> its structure's number
    numbers: dict[tuple[object, ...], int] = {}  # a node's own fields and its operands' numbers
    total = 0.0
    for name in sorted(roots):
        for t in postorder(roots[name], ids):
            key = (t.op, t.width, t.name, t.value, *(ids[id(x)] for x in t.args))
            if key not in numbers:
                numbers[key] = len(numbers)
                total += cost(t)
            ids[id(t)] = numbers[key]
    return total


def depth(t: Term) -> int:
    deepest: dict[int, int] = {}
    for x in postorder(t, {}):
        deepest[id(x)] = 1 + max((deepest[id(a)] for a in x.args), default=0)
    return deepest[id(t)]


def optimise(
    roots: dict[str, Term],
    cost: NodeCost,
    *,
    iterations: int = 12,
    node_limit: int = 20_000,
    trials: int = TRIALS,
) -> Optimised:
    """The cheapest equivalent of the roots found within the limits (the roots themselves if none is cheaper)."""
    before = dag_cost(roots, cost)
    if any(depth(t) > MAX_DEPTH for t in roots.values()):
        return Optimised(dict(roots), before, before, ())
    sat = saturate(roots, iterations=iterations, node_limit=node_limit)
    g = sat.graph
    costs = g.node_costs(cost)
    order = [sat.roots[name] for name in sorted(roots)]
    choice = best_choice(g, costs, order, trials)
    if any(choice[c] < 0 for c in order):
        return Optimised(dict(roots), before, before, ())
    memo: dict[int, Term] = {}
    terms = {name: build(g, choice, sat.roots[name], memo) for name in sorted(roots)}
    after = dag_cost(terms, cost)
    if after < before - 1e-9:
        matched = {name for name, n in sat.matches.items() if n > 0}
        return Optimised(terms, before, after, tuple(credited(RULES, matched, roots, terms)))
    return Optimised(dict(roots), before, before, ())
