"""loop_lift: bit-level chains (a ``for``-loop ripple carry or borrow, a bit-by-bit comparator) as word operators.

A combinational block with a loop is executed symbolically (``combblock``), and so is any lifted
assignment built bit by bit (at least ``MIN_BITS`` single-bit selects). Every target's function is
then compared, at every input point when the inputs have at most ``EXHAUSTIVE_BITS`` bits and else
at corner and seeded random points, with each plausible word-level operator over the same inputs:
``a + b``, ``a - b``, ``a + b + cin``, ``a - b - cin`` (the low bits, or the carry/borrow out),
``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``, unsigned and signed, for every ordered pair of inputs and
every 1-bit input as the carry. When every target of the block is one of them, the block is replaced
by the word-level expressions (targets of one operation share it). No shape of loop is matched:
only what it computes. Points are evidence, not proof: the evaluation stage proves every child equal
to its parent, so a lucky match is refuted there, never accepted.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

from ...egraph.bind import flip_sign, resize
from ...egraph.ir import Term, evaluator, node, subterms, var
from ..state import MoveContext
from .combblock import support
from .cones import Cone, cone_sites
from .expr import Syntax
from .rtl import RtlMove
from .verilog import Edit

EXHAUSTIVE_BITS = 12  # 4096 points
RANDOM_POINTS = 256
FIRST_POINTS = 24  # points every candidate is tried on before all of them
MIN_BITS = 4  # single-bit selects that make a lifted assignment a bit-level chain
MAX_INPUTS = 6  # names a cone reads (pairs x carries grow with the square)
MAX_WIDTH = 64
COMPARES = ("eq", "ne", "lt", "le", "gt", "ge")

Env = dict[str, int]
_cache: dict[str, list[list[Edit]]] = {}


def points(names: dict[str, int], seed: str) -> list[Env]:
    """Every input point, or the corners of each input (0, 1, top bit, all ones, all ones but one) in
    every combination plus seeded random points."""
    total = sum(names.values())
    order = list(names.items())
    if total <= EXHAUSTIVE_BITS:
        out = []
        for i in range(1 << total):
            env, rest = {}, i
            for n, w in reversed(order):
                env[n] = rest & ((1 << w) - 1)
                rest >>= w
            out.append(env)
        return out
    # the values that exist at width w (a set of range(1 << w) would hold 2**w ints: 20 GB at a 32-bit input)
    corners = [sorted(v for v in {0, 1, 1 << (w - 1), (1 << w) - 1, (1 << w) - 2} if 0 <= v < 1 << w) for _, w in order]
    out = [dict(zip(names, c, strict=True)) for c in itertools.islice(itertools.product(*corners), 1024)]
    rng = random.Random(seed)
    out += [{n: rng.getrandbits(w) for n, w in order} for _ in range(RANDOM_POINTS)]
    return out


def operations(names: dict[str, int], compares_first: bool) -> Iterator[tuple[Term, int]]:
    """Word-level results over the inputs with the operand width they work at: compares, and sums and
    differences one bit wider than the operands (carry/borrow on top), in either order: a 1-bit target
    that is a borrow out is a compare too, and which is smaller beside the difference is for synthesis."""
    if compares_first:
        yield from _compares(names)
    yield from _sums(names)
    if not compares_first:
        yield from _compares(names)


def _compares(names: dict[str, int]) -> Iterator[tuple[Term, int]]:
    for a, b in itertools.permutations([n for n, w in names.items() if w >= 2], 2):
        n = max(names[a], names[b])
        xs, ys = resize(var(a, names[a]), n), resize(var(b, names[b]), n)
        for op in COMPARES:
            if op in ("eq", "ne") and a > b:
                continue  # symmetric: one order is enough
            yield node(op, 1, xs, ys), n
            if names[a] == names[b] and op not in ("eq", "ne"):
                yield node(op, 1, flip_sign(xs), flip_sign(ys)), n


def _sums(names: dict[str, int]) -> Iterator[tuple[Term, int]]:
    carries = [n for n, w in names.items() if w == 1]
    for a, b in itertools.permutations([n for n, w in names.items() if w >= 2], 2):
        n = max(names[a], names[b])
        x, y = resize(var(a, names[a]), n + 1), resize(var(b, names[b]), n + 1)
        for op in ("add", "sub"):
            r = node(op, n + 1, x, y)
            yield r, n
            for c in carries:
                yield node(op, n + 1, r, resize(var(c, 1), n + 1)), n


def outputs(r: Term, n: int, width: int) -> Iterator[Term]:
    """The target-sized views of one operation's result: its low bits, or its carry/borrow out."""
    if r.width == 1:
        if width == 1:
            yield r
        elif width <= MAX_WIDTH:
            yield resize(r, width)
        return
    if width <= r.width:
        yield r if width == r.width else node("slice", width, r, value=0)
    if width == 1:
        yield node("slice", 1, r, value=n)


def narrow(t: Term) -> Term:
    """``(x + y)[w-1:0]`` at the target's own width ``w`` (the carry bit is then no adder's work)."""
    if t.op != "slice" or t.value != 0 or t.args[0].op not in ("add", "sub"):
        return t
    w = t.width

    def down(x: Term) -> Term:
        if x.op in ("add", "sub"):
            return node(x.op, w, down(x.args[0]), down(x.args[1]))
        return resize(x.args[0], w) if x.op == "zext" and x.args[0].width >= w else resize(x, w)

    return down(t.args[0])


def lifts(terms: dict[str, Term], seed: str, compares_first: bool = True) -> dict[str, Term] | None:
    """A word-level term for every target, matching it at every test point, or None."""
    names = support(list(terms.values()))
    if not names or len(names) > MAX_INPUTS or max(names.values()) > MAX_WIDTH:
        return None
    if sum(1 for w in names.values() if w >= 2) < 2:
        return None  # no two words to operate on
    pts = points(names, seed)
    first = pts[:FIRST_POINTS]
    # every target at a few points first: most operators are ruled out there, before a full evaluation
    runs = {k: evaluator(t) for k, t in terms.items()}
    quick = {k: [runs[k](p) for p in first] for k in terms}
    want: dict[str, list[int]] = {}
    found: dict[str, Term] = {}
    for r, n in operations(names, compares_first):
        for k, t in terms.items():
            if k in found:
                continue
            for cand in outputs(r, n, t.width):
                run = evaluator(cand)
                if [run(p) for p in first] != quick[k]:
                    continue
                if k not in want:
                    want[k] = [runs[k](p) for p in pts]
                if [run(p) for p in pts] == want[k]:
                    found[k] = cand
                    break
        if len(found) == len(terms):
            break
    if len(found) != len(terms):
        return None
    users: dict[Term, int] = {}
    for t in found.values():
        if t.op == "slice":
            users[t.args[0]] = users.get(t.args[0], 0) + 1
    # a result only one target reads is computed at that target's width; a shared one (sum and carry) once
    return {k: narrow(t) if t.op == "slice" and users[t.args[0]] == 1 else t for k, t in found.items()}


def bit_level(cone: Cone) -> bool:
    """A block with a loop, or a lifted assignment made of single-bit selects."""
    if cone.block is not None:
        return cone.loops > 0
    t = next(iter(cone.terms.values()))
    return sum(1 for x in subterms(t) if x.op == "slice" and x.width == 1) >= MIN_BITS


def _lifted(cone: Cone, seed: str) -> Iterator[dict[str, Term]]:
    if bit_level(cone):
        for first in (True, False):
            new = lifts(cone.terms, seed, first)
            if new is not None:
                yield new


def rewrites(text: str, tree: Syntax | None = None) -> list[list[Edit]]:
    return cone_sites(text, tree, _cache, _lifted)


class LoopLift(RtlMove):
    """A bit-level chain (loop or bit selects) replaced by the word operator it computes."""

    name = "loop_lift"
    requires = "fixed-parameters"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        return rewrites(text, tree)


__all__ = ["LoopLift", "lifts", "points"]
