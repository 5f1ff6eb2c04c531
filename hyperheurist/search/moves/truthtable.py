"""truth_table: a combinational function of few input bits resynthesised from its truth table, in the other form.

Whatever its text (``8'd1 << s``, ``{7'b0, 1'b1} << s``, a loop, a ``case``, ``k0 + k1*sel``), a target
whose value depends on at most ``MAX_INPUT_BITS`` input bits is evaluated at every input point
(``ir.evaluate``: the exact-width meaning of the Verilog) and written again from the table alone:
- where it computes arithmetic or shifts: as a table, either per output bit a minimised sum of
  products (a product over all inputs is written ``{ins} == v``: a decoder becomes a bank of
  compares), or as a reduced decision tree of 2:1 muxes over the input bits with the table's values
  at the leaves (equal subtables shared) when it has at most ``MAX_LEAVES`` distinct values;
- where it is a table (compares, muxes, bit logic): as arithmetic when one fits every point exactly
  (a constant, ``k0 + k1*x1 + ...``, ``k << x``, ``k >> x``, ``x < k`` / ``x >= k``), or as a
  minimised sum of products.
Nothing is matched on the text, only the function; which form synthesises smaller is the annealer's
finding, and every child is proven equal to its parent by the evaluation stage like any RTL change.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable

from ...egraph.bind import resize
from ...egraph.ir import Term, const, evaluate, node, subterms, var
from ..state import MoveContext
from .combblock import support
from .cones import Cone, cones, rewrite
from .expr import Syntax
from .rtl import RtlMove
from .verilog import Edit

MAX_INPUT_BITS = 8  # 256 points: evaluated in ~10 ms a target; a 9th bit doubles it and the tables
MAX_LEAVES = 16  # distinct values a decision tree may hold (a 256-bit one-hot decoder has 256: no tree)
MAX_PRODUCTS = 24  # products per output bit beyond which a sum of products is not offered
ARITHMETIC = frozenset({"add", "sub", "mul", "neg", "shl", "shr"})
# bit logic alone is already a sum of products bit by bit: only an arithmetic form would be another form
BIT_LOGIC = frozenset({"var", "slice", "concat", "zext", "const", "not", "and", "or", "xor"})
CACHE = 64

Table = list[int]
_cache: dict[str, list[list[Edit]]] = {}


def inputs(t: Term) -> dict[str, int]:
    return support([t])


def table(t: Term, names: dict[str, int]) -> Table:
    """The term's value at every input point; the first name is the most significant index bits."""
    order = list(names.items())
    out = []
    for i in range(1 << sum(names.values())):
        env, rest = {}, i
        for name, w in reversed(order):
            env[name] = rest & ((1 << w) - 1)
            rest >>= w
        out.append(evaluate(t, env))
    return out


class Inputs:
    """The index bits of a table as terms: bit ``j`` (0 = least significant) and the whole index."""

    def __init__(self, names: dict[str, int]) -> None:
        self.names = names
        self.width = sum(names.values())
        self.bits: list[Term] = []
        for name, w in reversed(list(names.items())):
            v = var(name, w)
            self.bits += [v] if w == 1 else [node("slice", 1, v, value=k) for k in range(w)]
        parts = [var(n, w) for n, w in names.items()]
        self.index = parts[0] if len(parts) == 1 else node("concat", self.width, *parts)


# --- sums of products --------------------------------------------------------------------------------

Implicant = tuple[int, int]  # (value, mask of the bits it does not care about)


def primes(ones: list[int], n: int) -> list[Implicant]:
    """The prime implicants of the on-set ``ones`` over ``n`` bits (Quine-McCluskey)."""
    current = {(m, 0) for m in ones}
    found: set[Implicant] = set()
    while current:
        merged: set[Implicant] = set()
        used: set[Implicant] = set()
        by_mask: dict[int, list[int]] = {}
        for v, mask in current:
            by_mask.setdefault(mask, []).append(v)
        for mask, values in by_mask.items():
            present = set(values)
            for v in values:
                for j in range(n):
                    b = 1 << j
                    if mask & b or v & b or v | b not in present:
                        continue
                    merged.add((v, mask | b))
                    used.update({(v, mask), (v | b, mask)})
        found |= current - used
        current = merged
    return sorted(found)


def cover(ones: list[int], n: int) -> list[Implicant]:
    """A small set of prime implicants covering ``ones`` (essential ones first, then greedy)."""
    ps = primes(ones, n)
    covers = {p: {m for m in ones if m & ~p[1] == p[0]} for p in ps}
    left, chosen = set(ones), []
    for m in ones:
        holders = [p for p in ps if m in covers[p]]
        if len(holders) == 1 and holders[0] not in chosen:
            chosen.append(holders[0])
            left -= covers[holders[0]]
    while left:
        best = max(ps, key=lambda p: (len(covers[p] & left), bin(p[1]).count("1")))
        chosen.append(best)
        left -= covers[best]
    return chosen


def _or(terms: list[Term]) -> Term:
    out = terms[0]
    for t in terms[1:]:
        out = node("or", 1, out, t)
    return out


def product(p: Implicant, ins: Inputs) -> Term:
    value, mask = p
    full = (1 << ins.width) - 1
    if mask == 0 and ins.width > 1:
        return node("eq", 1, ins.index, const(value, ins.width))
    lits = [b if value >> j & 1 else node("not", 1, b) for j, b in enumerate(ins.bits) if not mask >> j & 1]
    if mask == full:
        return const(1, 1)
    out = lits[-1]
    for x in reversed(lits[:-1]):
        out = node("and", 1, out, x)
    return out


def sop_bit(ones: list[int], ins: Inputs) -> Term | None:
    """One output bit as a minimised sum of products, or its complement's when that is smaller."""
    points = 1 << ins.width
    if not ones or len(ones) == points:
        return const(1 if ones else 0, 1)
    zeros = sorted(set(range(points)) - set(ones))
    on, off = cover(ones, ins.width), cover(zeros, ins.width)
    size = [sum(ins.width - bin(m).count("1") for _, m in c) for c in (on, off)]
    if min(len(on), len(off)) > MAX_PRODUCTS:
        return None
    if size[1] < size[0]:
        return node("not", 1, _or([product(p, ins) for p in off]))
    return _or([product(p, ins) for p in on])


def sum_of_products(tab: Table, width: int, ins: Inputs) -> Term | None:
    bits = []
    for k in range(width):
        b = sop_bit([i for i, v in enumerate(tab) if v >> k & 1], ins)
        if b is None:
            return None
        bits.append(b)
    return bits[0] if width == 1 else node("concat", width, *reversed(bits))


# --- decision tree -----------------------------------------------------------------------------------

def decision_tree(tab: Table, width: int, ins: Inputs) -> Term | None:
    """A mux tree over the index bits (most significant first) with the values at its leaves."""
    if len(set(tab)) > MAX_LEAVES:
        return None
    memo: dict[tuple[int, ...], Term] = {}

    def build(part: tuple[int, ...], level: int) -> Term:
        if part in memo:
            return memo[part]
        half = len(part) // 2
        if len(set(part)) == 1:
            out = const(part[0], width)
        elif part[:half] == part[half:]:
            out = build(part[:half], level - 1)
        else:
            out = node("mux", width, ins.bits[level], build(part[half:], level - 1), build(part[:half], level - 1))
        memo[part] = out
        return out

    return build(tuple(tab), ins.width - 1)


# --- arithmetic --------------------------------------------------------------------------------------

def _fits(tab: Table, f: Callable[[int], int]) -> bool:
    return all(f(i) == v for i, v in enumerate(tab))


def arithmetic(tab: Table, width: int, names: dict[str, int]) -> Term | None:
    """The simplest word-level expression equal to the table at every point, if one of the forms fits."""
    mask = (1 << width) - 1
    if len(set(tab)) == 1:
        return const(tab[0], width)
    order = list(names.items())
    shifts, s = {}, 0
    for n, w in reversed(order):
        shifts[n] = s
        s += w

    def field(i: int, n: str) -> int:
        return (i >> shifts[n]) & ((1 << names[n]) - 1)

    k0 = tab[0]
    ks = {n: (tab[1 << shifts[n]] - k0) & mask for n in names}
    if _fits(tab, lambda i: (k0 + sum(ks[n] * field(i, n) for n in names)) & mask):
        out = None
        for n, k in ks.items():
            if k:
                x = resize(var(n, names[n]), width)
                x = x if k == 1 else node("mul", width, x, const(k, width))
                out = x if out is None else node("add", width, out, x)
        if out is not None:
            return out if k0 == 0 else node("add", width, out, const(k0, width))
    if len(names) != 1:
        return None
    (n, w), = names.items()
    x = var(n, w)
    if _fits(tab, lambda i: (k0 << i) & mask if i < width else 0):
        return node("shl", width, const(k0, width), x)
    if _fits(tab, lambda i: k0 >> i if i < width else 0):
        return node("shr", width, const(k0, width), x)
    if width == 1:
        for c in range(1, 1 << w):
            for op, hit in (("lt", 1), ("ge", 0)):
                if all(v == (hit if i < c else 1 - hit) for i, v in enumerate(tab)):
                    return node(op, 1, x, const(c, w))
    return None


# --- the move ----------------------------------------------------------------------------------------

def forms(t: Term) -> list[Term]:
    """The other forms of ``t`` (a function of at most ``MAX_INPUT_BITS`` input bits), [] otherwise."""
    names = inputs(t)
    n = sum(names.values())
    ops = {x.op for x in subterms(t)}
    if not 2 <= n <= MAX_INPUT_BITS or ops <= {"var", "slice", "concat", "zext", "const", "not"}:
        return []
    tab = table(t, names)
    ins = Inputs(names)
    found: list[Term | None] = []
    if len(set(tab)) == 1:
        found = [const(tab[0], t.width)]
    elif ops & ARITHMETIC:
        found = [sum_of_products(tab, t.width, ins), decision_tree(tab, t.width, ins)]
    elif ops <= BIT_LOGIC:
        found = [arithmetic(tab, t.width, names)]
    else:
        found = [arithmetic(tab, t.width, names), sum_of_products(tab, t.width, ins)]
    return [f for f in dict.fromkeys(found) if f is not None and f != t]


def cone_sites(text: str, cone: Cone) -> list[list[Edit]]:
    """For a lifted assignment, one site per other form; for a block, the first form of every target
    together (a block is replaced whole)."""
    alts = {k: forms(t) for k, t in cone.terms.items()}
    if cone.block is None:
        return [e for k, fs in alts.items() for f in fs for e in [rewrite(text, cone, {k: f})] if e]
    if any(not fs for fs in alts.values()):
        return []
    out = []
    for choice in range(max(len(fs) for fs in alts.values())):
        e = rewrite(text, cone, {k: fs[min(choice, len(fs) - 1)] for k, fs in alts.items()})
        if e:
            out.append(e)
    return out


def rewrites(text: str, tree: Syntax | None = None) -> list[list[Edit]]:
    key = hashlib.sha256(text.encode()).hexdigest()
    if key not in _cache:
        if len(_cache) >= CACHE:
            del _cache[next(iter(_cache))]
        _cache[key] = [site for c in cones(text, tree) for site in cone_sites(text, c)]
    return [list(site) for site in _cache[key]]


class TruthTable(RtlMove):
    """A function of few input bits written again from its truth table, in the other form."""

    name = "truth_table"
    requires = "fixed-parameters"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        return rewrites(text, tree)
