"""One known-zero-bit analysis (``egraph.bits``) for the cost model's terms and the e-graph's classes (issue 31).

They were two (``cost.eff``/``cost.tz`` and ``graph.known_zeros``) and disagreed: the e-graph knew no low zero
bit of a difference, so ``(x << 2) - (y << 2)`` was priced with a stand-in of 0 known low zeros while the term
itself showed 2. Here the e-graph of a term (one node per class, no rewrite) must know what the term shows, and
what both claim must hold of the values.
"""

from __future__ import annotations

import random

from hyperheurist.egraph import cost
from hyperheurist.egraph.bits import of_term
from hyperheurist.egraph.encode import CTOR_OF
from hyperheurist.egraph.graph import ENode, Graph, known_zeros
from hyperheurist.egraph.ir import Term, const, evaluate, node, var

X, Y = var("x", 8), var("y", 8)
TWO = const(2, 3)


def _graph(t: Term) -> tuple[Graph, dict[Term, int]]:
    """The e-graph of ``t`` unsaturated: a class per distinct subterm, concats nested to the right as
    ``encode`` does, constructor arguments as ``encode`` writes them."""
    nodes: list[ENode] = []
    widths: list[int] = []
    names: dict[str, int] = {}
    cls: dict[Term, int] = {}

    def add(ctor: str, ints: tuple[int, ...], kids: tuple[int, ...], width: int) -> int:
        widths.append(width)
        nodes.append(ENode(ctor, ints, kids, len(widths) - 1))
        return len(widths) - 1

    def enc(s: Term) -> int:
        if s in cls:
            return cls[s]
        k = tuple(enc(a) for a in s.args)
        ctor = CTOR_OF.get(s.op, "")
        if s.op == "var":
            c = add("Var", (s.width, names.setdefault(s.name, len(names))), (), s.width)
        elif s.op == "const":
            c = add("Const", (s.width, s.value), (), s.width)
        elif s.op in ("shl", "shr"):
            c = add(ctor, (s.width, s.args[1].width), k, s.width)
        elif s.op in ("zext", "sext"):
            c = add(ctor, (s.width, s.args[0].width), k, s.width)
        elif s.op == "slice":
            c = add("Slice", (s.width, s.value, s.args[0].width), k, s.width)
        elif s.op == "concat":
            c, tail_w = k[-1], s.args[-1].width
            for part, kid in zip(reversed(s.args[:-1]), reversed(k[:-1]), strict=True):
                c = add("Concat", (tail_w + part.width, part.width), (kid, c), tail_w + part.width)
                tail_w += part.width
        else:
            c = add(ctor, (s.width,), k, s.width)
        cls[s] = c
        return c

    enc(t)
    classes = tuple((i,) for i in range(len(nodes)))
    return Graph(tuple(nodes), classes, tuple(widths), {0: cls[t]}, tuple(names), ()), cls


def _shl(a: Term, k: int) -> Term:
    return node("shl", a.width, a, const(k, 3))


def test_the_difference_of_two_shifted_values_keeps_its_low_zeros_in_both() -> None:
    t = node("sub", 8, _shl(X, 2), _shl(Y, 2))
    g, cls = _graph(t)
    high, low = known_zeros(g)
    assert cost.tz(t) == 2 and cost.eff(t) == 8
    assert (high[cls[t]], low[cls[t]]) == (8, 2)  # the e-graph knew 0 low zeros here


def _random_term(rng: random.Random, w: int, depth: int) -> Term:
    if depth == 0 or rng.random() < 0.2:
        return rng.choice([var(rng.choice("abc"), w), const(rng.randrange(1 << w), w), const(0, w)])
    op = rng.choice(["add", "sub", "mul", "and", "or", "xor", "not", "shl", "shr", "zext", "sext", "slice",
                     "concat", "mux"])
    sub = lambda width: _random_term(rng, width, depth - 1)  # noqa: E731
    if op in ("shl", "shr"):
        return node(op, w, sub(w), const(rng.randrange(w + 1), 4) if rng.random() < 0.8 else var("s", 4))
    if op in ("zext", "sext"):
        return node(op, w, sub(rng.randint(1, w)))
    if op == "slice":
        extra = rng.randint(0, 4)
        return node("slice", w, sub(w + extra), value=rng.randint(0, extra))
    if op == "concat" and w >= 2:
        cut = rng.randint(1, w - 1)
        return node("concat", w, sub(w - cut), sub(cut))
    if op == "mux":
        return node("mux", w, _random_term(rng, 1, depth - 1), sub(w), sub(w))
    if op == "not":
        return node("not", w, sub(w))
    if op == "concat":
        return sub(w)
    return node(op, w, sub(w), sub(w))


def test_the_e_graph_knows_what_each_term_shows_and_it_holds_of_the_values() -> None:
    rng = random.Random(31)
    checked = 0
    for _ in range(300):
        t = _random_term(rng, rng.randint(1, 8), 4)
        g, cls = _graph(t)
        high, low = known_zeros(g)
        for s, c in cls.items():
            facts = of_term(s, depth=64)
            assert (high[c], low[c]) == (facts.high, facts.low), (s, (high[c], low[c]), facts)
        for _ in range(20):
            v = evaluate(t, {name: rng.randrange(256) for name in "abcs"})
            facts = of_term(t, depth=64)
            assert v < (1 << facts.high) and v % (1 << facts.low) == 0, (t, v, facts)
            checked += 1
    assert checked == 6000


def test_a_three_part_concat_reads_alike_nested_or_flat() -> None:
    t = node("concat", 12, const(0, 4), _shl(node("zext", 4, var("a", 2)), 1), const(0, 4))
    g, cls = _graph(t)
    high, low = known_zeros(g)
    assert (cost.eff(t), cost.tz(t)) == (7, 5) == (high[cls[t]], low[cls[t]])
