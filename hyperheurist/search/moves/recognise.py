"""function_recognition: what a combinational cone computes, written as the best word-level form of it.

Every cone ``cones`` finds (a lifted assignment, or the results of a combinational block, loops
unrolled by ``combblock``) over at most ``MAX_INPUTS`` input names is evaluated at ``loop_lift``'s
points (every point when the inputs have at most 12 bits, else corners and seeded random points) and
compared with every form of ``funclib``: |a-b| as one subtractor, min/max, products, saturating
sums, shifts and rotates by a word, population and zero counts, the highest/lowest set bit, bit
reversal, reductions, and ``loop_lift``'s compares and sums, or a mux by a 1-bit input of two of them
(or of one and a word or a constant: ``en ? |a-b| : 0``); a 1-bit target no form is, a measure of the
inputs compared with constants (``funcpred``: ``cnt == 1`` of a counting loop as ``|x & ~|(x & (x-1))``).
Clocked blocks are cones too (``clockblock``: each register's next value). When every target of the cone is one of
them, the cone is written again as those forms (one always block or assignment per target), a compare
of two words another target subtracts written as that subtractor's borrow (``share_borrow``). Only the
function is matched, never the text; a match is evidence, not proof: the evaluation stage proves
every child equal to its parent, so a lucky match is refuted there and never accepted.

A rewrite is proposed where it is a change of form: the cone is a bit-level chain (``loop_lift``'s
test), or the forms use fewer operators (not counting wiring) than the cone as written (``(a > b) ?
a - b : b - a`` has two subtractors and a compare; the form one subtractor and a negation).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from ...egraph.bind import resize
from ...egraph.ir import Term, _value, const, node, subterms, var
from ..state import MoveContext
from .combblock import support
from .cones import Cone, cone_sites
from .expr import Syntax
from .funclib import Env, Form, forms, override
from .funcpred import predicate
from .looplift import FIRST_POINTS, bit_level, narrow, points
from .rtl import RtlMove
from .verilog import Edit

MAX_INPUTS = 4  # names a cone reads (binary forms grow with the square)
MAX_WIDTH = 64
WIRING = frozenset({"var", "const", "zext", "sext", "slice", "concat"})

_cache: dict[str, list[list[Edit]]] = {}


def operators(terms: list[Term]) -> int:
    """Operator nodes of the terms, each shared node once (wiring is free)."""
    seen: set[Term] = set()
    for t in terms:
        seen.update(x for x in subterms(t) if x.op not in WIRING)
    return len(seen)


def values(t: Term, pts: list[dict[str, int]]) -> list[int]:
    """``ir.evaluate`` of ``t`` at every point, its nodes put in order once (an unrolled loop's term has
    hundreds of nodes: ordering them again at each of 1,300 points cost seconds a cone)."""
    order = list(subterms(t))
    pos = {x: i for i, x in enumerate(order)}
    args = [[pos[a] for a in x.args] for x in order]
    out = []
    for p in pts:
        v: list[int] = []
        for x, a in zip(order, args, strict=True):
            v.append(_value(x, [v[i] for i in a], p))
        out.append(v[-1])
    return out


def _close(f: Form, quick: list[int], values: list[int], first: list[dict[str, int]], width: int) -> bool:
    """The form agrees with the target at the first points, but maybe where its one operand is 0."""
    mask = (1 << width) - 1
    wrong = [i for i, (t, v) in enumerate(zip(quick, values, strict=True)) if t != v & mask]
    return not wrong or (len(f.operands) == 1 and all(first[i][f.operands[0]] == 0 for i in wrong))


def share_borrow(found: dict[str, Term]) -> dict[str, Term]:
    """A target that is an unsigned compare of two words another target subtracts (one bit wider, as
    ``|a-b|`` and the saturating forms do) as that subtractor's borrow: ``a < b`` is the borrow of
    ``a - b``, ``a >= b`` its inverse, ``a > b`` and ``a <= b`` the same of ``b - a``."""
    subs: dict[tuple[Term, Term], Term] = {}
    for t in found.values():
        for x in subterms(t):
            p, q = x.args if x.op == "sub" else (x, x)
            if x.op == "sub" and p.op == q.op == "zext" and p.args[0].width == q.args[0].width == x.width - 1:
                subs[(p.args[0], q.args[0])] = x
    out = {}
    for k, t in found.items():
        if t.op in ("lt", "ge", "gt", "le"):
            p, q = t.args if t.op in ("lt", "ge") else (t.args[1], t.args[0])
            d = subs.get((p, q))
            if d is not None:
                borrow = node("slice", 1, d, value=d.width - 1)
                t = borrow if t.op in ("lt", "gt") else node("not", 1, borrow)
        out[k] = t
    return out


Values = Callable[[list[Env]], list[int]]


def at(t: Term, fixed: Env) -> Values:
    """``t``'s values at given points, with the inputs in ``fixed`` held at their values."""
    def run(ps: list[Env]) -> list[int]:
        return values(t, [{**p, **fixed} for p in ps])
    return run


def match(target: Values, width: int, names: dict[str, int], pts: list[Env], seed: str = "") -> Term | None:
    """The first form over ``names`` equal to the target (its values at given points) at every point; a
    1-bit target no form is: a measure of the inputs compared with constants (``funcpred``)."""
    first = pts[:FIRST_POINTS]
    quick = target(first)
    want: list[int] | None = None
    for f in forms(names):
        if not _close(f, quick, [f.value(p) for p in first], first, width):
            continue
        if width == 1 and f.build().width > 1:
            continue  # one bit of a wider function is no recognition of it
        want = target(pts) if want is None else want
        term = override(f, want, [f.value(p) for p in pts], pts, width)
        if term is not None:
            return narrow(term)
    return predicate(target, names, pts, seed) if width == 1 else None


def arm(target: Values, width: int, names: dict[str, int], pts: list[Env], seed: str = "") -> Term | None:
    """A mux arm: a constant, one of the words as it is, or a form (each tried at a few points first)."""
    mask = (1 << width) - 1
    first = pts[:FIRST_POINTS]
    quick = target(first)
    simple: list[tuple[Term, list[int]]] = []
    if len(set(quick)) == 1:
        simple.append((const(quick[0], width), [quick[0]] * len(pts)))
    for n, w in names.items():
        if quick == [p[n] & mask for p in first]:
            simple.append((resize(var(n, w), width), [p[n] & mask for p in pts]))
    want = target(pts) if simple else []
    for term, value in simple:
        if want == value:
            return term
    return match(target, width, names, pts, seed) if any(w >= 2 for w in names.values()) else None


def muxed(t: Term, names: dict[str, int], pts: list[Env], seed: str = "") -> Term | None:
    """``s ? f : g`` for a 1-bit input ``s`` whose two cofactors of ``t`` are each an ``arm``."""
    for s in [n for n, w in names.items() if w == 1]:
        rest = {n: w for n, w in names.items() if n != s}
        arms = []
        for b in (1, 0):
            arms.append(arm(at(t, {s: b}), t.width, rest, pts, seed))
        if arms[0] is not None and arms[1] is not None and arms[0] != arms[1]:
            return node("mux", t.width, var(s, 1), arms[0], arms[1])
    return None


def recognise(terms: dict[str, Term], seed: str) -> dict[str, Term] | None:
    """A word-level form for every target, equal to it at every point, or None: a form of the library,
    else a mux by a 1-bit input of two forms (or of a form and a word or constant)."""
    names = support(list(terms.values()))
    if not names or len(names) > MAX_INPUTS or max(names.values()) > MAX_WIDTH:
        return None
    if not any(w >= 2 for w in names.values()):
        return None
    pts = points(names, seed)
    found: dict[str, Term] = {}
    for k, t in terms.items():
        m = match(at(t, {}), t.width, names, pts, seed) or muxed(t, names, pts, seed)
        if m is None:
            return None
        found[k] = m
    return share_borrow(found)


def _recognised(cone: Cone, seed: str) -> Iterator[dict[str, Term]]:
    new = recognise(cone.terms, seed)
    if new is None:
        return
    if bit_level(cone) or operators(list(new.values())) < operators(list(cone.terms.values())):
        yield new  # else the same work in another shape: for the e-graph, not a recognition


def rewrites(text: str, tree: Syntax | None = None) -> list[list[Edit]]:
    return cone_sites(text, tree, _cache, _recognised, clocked=True)


class FunctionRecognition(RtlMove):
    """A combinational cone replaced by the word-level function it computes."""

    name = "function_recognition"
    requires = "fixed-parameters"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        return rewrites(text, tree)


__all__ = ["FunctionRecognition", "operators", "recognise", "match", "muxed", "share_borrow", "values"]
