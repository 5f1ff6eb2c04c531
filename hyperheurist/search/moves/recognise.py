"""function_recognition: what a combinational cone computes, written as the best word-level form of it.

Every cone ``cones`` finds (a lifted assignment, or the results of a combinational block, loops
unrolled by ``combblock``) over at most ``MAX_INPUTS`` input names is evaluated at ``loop_lift``'s
points (every point when the inputs have at most 12 bits, else corners and seeded random points) and
compared with every form of ``funclib``: |a-b| as one subtractor, min/max, products, saturating
sums, shifts and rotates by a word, population and zero counts, the highest/lowest set bit, bit
reversal, reductions, and ``loop_lift``'s compares and sums. When every target of the cone is one of
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
from collections.abc import Iterator

from ...egraph.ir import Term, _value, node, subterms
from ..state import MoveContext
from .combblock import support
from .cones import Cone, cone_sites
from .expr import Syntax
from .funclib import Form, forms, override
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


def recognise(terms: dict[str, Term], seed: str) -> dict[str, Term] | None:
    """A word-level form for every target, equal to it at every point, or None."""
    names = support(list(terms.values()))
    if not names or len(names) > MAX_INPUTS or max(names.values()) > MAX_WIDTH:
        return None
    if not any(w >= 2 for w in names.values()):
        return None
    pts = points(names, seed)
    first = pts[:FIRST_POINTS]
    quick = {k: values(t, first) for k, t in terms.items()}
    want: dict[str, list[int]] = {}
    found: dict[str, Term] = {}
    for f in forms(names):
        head = [f.value(p) for p in first]
        for k, t in terms.items():
            if k in found or not _close(f, quick[k], head, first, t.width):
                continue
            if t.width == 1 and f.build().width > 1:
                continue  # one bit of a wider function is no recognition of it
            if k not in want:
                want[k] = values(t, pts)
            term = override(f, want[k], [f.value(p) for p in pts], pts, t.width)
            if term is not None:
                found[k] = narrow(term)
        if len(found) == len(terms):
            return share_borrow(found)
    return None


def _recognised(cone: Cone, seed: str) -> Iterator[dict[str, Term]]:
    new = recognise(cone.terms, seed)
    if new is None:
        return
    if bit_level(cone) or operators(list(new.values())) < operators(list(cone.terms.values())):
        yield new  # else the same work in another shape: for the e-graph, not a recognition


def rewrites(text: str, tree: Syntax | None = None) -> list[list[Edit]]:
    return cone_sites(text, tree, _cache, _recognised)


class FunctionRecognition(RtlMove):
    """A combinational cone replaced by the word-level function it computes."""

    name = "function_recognition"
    requires = "fixed-parameters"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        return rewrites(text, tree)


__all__ = ["FunctionRecognition", "operators", "recognise", "share_borrow", "values"]
