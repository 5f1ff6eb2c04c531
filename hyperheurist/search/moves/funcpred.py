"""Predicates ``function_recognition`` matches a 1-bit cone against: a measure of the inputs compared
with constants.

A ``Measure`` is a number computed from the cone's inputs: the count of ones of a bit vector (a word, the
xor of two words, or one flag per field of a word: the field is nonzero, all ones, or equal to another
word), the length of the run of ones or zeros at either end of a word, a word itself, or any form of
``funclib`` (``|a-b|``, ``a*b``, a sum, a zero count, ...: a composition, library function then
compare). A 1-bit target is matched by its values alone: on the points the measure takes a value where
the target is 1 it never takes where the target is 0, and the values where it is 1 are one value, all but
one, the values from some bound up or down, or a range. The predicate is then written in the form a
logic designer would use for it, by the threshold it names (``ge(k)``: the measure is at least ``k``):
the count of ones of ``v`` is ``>= 1`` when ``|v``, ``>= W`` when ``&v``, ``>= 2`` when
``|(v & (v - 1))`` (so "exactly one bit set" is ``|v & ~|(v & (v - 1))``); a run of ``k`` leading ones is
``&x[W-1:W-k]``; any other threshold a compare of the measure's word-level term with the constant.

Counts and runs take few values, so the points are made to hit each of them: besides ``loop_lift``'s
points (exhaustive up to 12 input bits), each word is also given every count of ones, every run length at
both ends and every count of zero, all-ones and equal fields (seeded). A match is evidence, never proof:
the evaluation stage proves the rewrite, so a threshold a sample got wrong is refuted there.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ...egraph.bind import resize
from ...egraph.ir import Term, const, node, var
from .funclib import Env, forms, popcount_term

MAX_EXTRA = 1536  # extra points per cone (a 64-bit word: 65 counts x 5 kinds, plus its fields)
Shape = tuple[str, int, int]  # ("eq" | "ne" | "ge" | "le" | "in" | "out", lo, hi)


def _bits(x: Term) -> list[Term]:
    return [node("slice", 1, x, value=i) if x.width > 1 else x for i in range(x.width)]


def _and(ts: list[Term]) -> Term:
    return ts[0] if len(ts) == 1 else node("redand", 1, node("concat", len(ts), *reversed(ts)))


def _not(t: Term) -> Term:
    if t.op == "const":
        return const(1 - t.value, 1)
    return t.args[0] if t.op == "not" else node("not", 1, t)


def _join(op: str, a: Term, b: Term) -> Term:
    if a.op == "const":
        return b if a.value == (op == "and") else a
    if b.op == "const":
        return a if b.value == (op == "and") else b
    return node(op, 1, a, b)


@dataclass(frozen=True)
class Measure:
    """A number over the cone's inputs: its label, its value at a point, its largest value, and the term
    for ``measure >= k`` (``k`` from 1 to ``top``)."""

    label: str
    value: Callable[[Env], int]
    top: int
    at_least: Callable[[int], Term]
    compare: Callable[[str, int], Term] | None = None  # a direct compare, for words (eq is no two ges)

    def ge(self, k: int) -> Term:
        if k <= 0:
            return const(1, 1)
        if k > self.top:
            return const(0, 1)
        return self.at_least(k)

    def predicate(self, shape: Shape) -> Term:
        op, lo, hi = shape
        if self.compare is not None and op in ("eq", "ne", "ge", "le"):
            return self.compare(op, lo)
        if op == "ge":
            return self.ge(lo)
        if op == "le":
            return _not(self.ge(lo + 1))
        inside = _join("and", self.ge(lo), _not(self.ge(hi + 1)))
        return _not(inside) if op in ("ne", "out") else inside


def ones_at_least(v: Term) -> Callable[[int], Term]:
    """``popcount(v) >= k``: ``|v`` at 1, ``|(v & (v-1))`` at 2, ``&v`` at W, ``~|(~v & (~v-1))`` at W-1
    (at most one zero), else a compare of the adder tree."""
    w = v.width

    def two_or_more(u: Term) -> Term:
        if u.width == 1:
            return const(0, 1)
        return node("redor", 1, node("and", u.width, u, node("sub", u.width, u, const(1, u.width))))

    def ge(k: int) -> Term:
        if k == 1:
            return node("redor", 1, v) if w > 1 else v
        if k == w:
            return node("redand", 1, v) if w > 1 else v
        if k == 2:
            return two_or_more(v)
        if k == w - 1:
            return _not(two_or_more(node("not", w, v)))
        n = popcount_term(v)
        return node("ge", 1, n, const(k, n.width))
    return ge


def _count(label: str, v: Term, value: Callable[[Env], int]) -> Measure:
    return Measure(label, value, v.width, ones_at_least(v))


def _word(label: str, t: Term, value: Callable[[Env], int]) -> Measure:
    w = t.width

    def cmp(op: str, k: int) -> Term:
        return node(op, 1, t, const(k, w))
    return Measure(label, value, (1 << w) - 1, lambda k: cmp("ge", k), cmp)


Value = Callable[[Env], int]


def _ones(a: str, b: str | None) -> Value:
    """The ones of ``a`` (of ``a ^ b``)."""
    def value(e: Env) -> int:
        return bin(e[a] ^ (e[b] if b is not None else 0)).count("1")
    return value


def _ident(a: str) -> Value:
    def value(e: Env) -> int:
        return e[a]
    return value


def _masked(f: Value, mask: int) -> Value:
    def value(e: Env) -> int:
        return f(e) & mask
    return value


def _equals(b: str) -> Callable[[int, Env], bool]:
    def test(v: int, e: Env) -> bool:
        return v == e[b]
    return test


def _fields_value(a: str, f: int, n: int, test: Callable[..., bool]) -> Value:
    """How many of the ``n`` fields of ``f`` bits of ``a`` pass ``test(field, point)``."""
    m = (1 << f) - 1

    def value(e: Env) -> int:
        return sum(1 for i in range(n) if test((e[a] >> (i * f)) & m, e))
    return value


def _run_value(a: str, full: int, ones: bool, top: bool, run: Callable[[int, bool, bool], int]) -> Value:
    def value(e: Env) -> int:
        return run(e[a] & full, ones, top)
    return value


def _runs(a: str, w: int) -> Iterator[Measure]:
    """The runs of ones and of zeros at the top and at the bottom of ``a``: ``ge(k)`` is the and (or the
    nor) of the ``k`` bits at that end."""
    x = var(a, w)
    bits = _bits(x)
    full = (1 << w) - 1

    def run(v: int, ones: bool, top: bool) -> int:
        n = 0
        for i in (range(w - 1, -1, -1) if top else range(w)):
            if ((v >> i) & 1) != ones:
                break
            n += 1
        return n

    for ones, top in itertools.product((True, False), (True, False)):
        def ge(k: int, ones: bool = ones, top: bool = top) -> Term:
            end = bits[w - k:] if top else bits[:k]
            if ones:
                return _and(end)
            return _not(end[0] if k == 1 else node("redor", 1, node("concat", k, *reversed(end))))
        label = ("lead_" if top else "trail_") + ("ones" if ones else "zeros")
        yield Measure(f"{label}({a})", _run_value(a, full, ones, top, run), w, ge)


def _fields(a: str, w: int, names: dict[str, int]) -> Iterator[Measure]:
    """Per field width ``f`` dividing ``w``: how many fields are nonzero, all ones, equal to a word ``b``
    of ``f`` bits."""
    x = var(a, w)
    for f in range(2, w // 2 + 1):
        if w % f:
            continue
        n, m = w // f, (1 << f) - 1
        parts = [node("slice", f, x, value=i * f) for i in range(n)]

        def vec(flags: list[Term]) -> Term:
            return node("concat", len(flags), *reversed(flags))

        yield _count(f"nonzero_fields{f}({a})", vec([node("redor", 1, p) for p in parts]),
                     _fields_value(a, f, n, lambda v, e: v != 0))
        yield _count(f"ones_fields{f}({a})", vec([node("redand", 1, p) for p in parts]),
                     _fields_value(a, f, n, lambda v, e, m=m: v == m))
        for b, wb in names.items():
            if b != a and wb == f:
                y = var(b, f)
                yield _count(f"eq_fields{f}({a},{b})", vec([node("eq", 1, p, y) for p in parts]),
                             _fields_value(a, f, n, _equals(b)))


def measures(names: dict[str, int]) -> Iterator[Measure]:
    """Counts of ones (of each word, of the xor of two words of one width, of per-field flags), runs at
    the ends of each word, each word itself, then every multi-bit form of ``funclib``."""
    words = [n for n, w in names.items() if w >= 2]
    for a in words:
        w = names[a]
        yield _count(f"popcount({a})", var(a, w), _ones(a, None))
    for a, b in itertools.combinations(words, 2):
        if names[a] == names[b]:
            w = names[a]
            yield _count(f"hamming({a},{b})", node("xor", w, var(a, w), var(b, w)),
                         _ones(a, b))
    for a in words:
        yield from _runs(a, names[a])
        yield from _fields(a, names[a], names)
    for a in words:
        yield _word(a, var(a, names[a]), _ident(a))
    for f in forms(names):
        t = f.build()
        if t.width > 1:
            yield _word(f.label, t, _masked(f.value, (1 << t.width) - 1))


def shape(values: list[int], target: list[int]) -> Shape | None:
    """How the target (0/1 at each point) follows the measure's values, or None when it does not."""
    ones = {v for v, t in zip(values, target, strict=True) if t}
    zeros = {v for v, t in zip(values, target, strict=True) if not t}
    if not ones or not zeros or ones & zeros:
        return None
    lo, hi = min(ones), max(ones)
    if max(zeros) < lo:
        return ("ge", lo, lo)
    if hi < min(zeros):
        return ("le", hi, hi)
    if len(ones) == 1:
        return ("eq", lo, lo)
    if len(zeros) == 1:
        z = next(iter(zeros))
        return ("ne", z, z)
    if not any(lo <= z <= hi for z in zeros):
        return ("in", lo, hi)
    zl, zh = min(zeros), max(zeros)
    if not any(zl <= o <= zh for o in ones):
        return ("out", zl, zh)
    return None


def extra_points(names: dict[str, int], seed: str) -> list[Env]:
    """Points that give each count and run its every value: per word, every count of ones at random
    places, every run of ones/zeros at each end, every count of zero, all-ones and equal fields (the
    other inputs random)."""
    rng = random.Random(seed + ":predicates")
    out: list[Env] = []

    def base() -> Env:
        return {n: rng.getrandbits(w) for n, w in names.items()}

    for a, w in names.items():
        if w < 2:
            continue
        full = (1 << w) - 1
        for k in range(w + 1):
            p = base()
            p[a] = sum(1 << i for i in rng.sample(range(w), k))
            out.append(p)
            for ones, top in itertools.product((True, False), (True, False)):
                p = base()
                v = p[a]
                run = (full >> (w - k)) << (w - k) if top else (1 << k) - 1
                stop = (1 << (w - k - 1)) if top and k < w else (1 << k) if k < w else 0
                v = (v | run) & ~stop if ones else (v & ~run) | stop
                p[a] = v & full
                out.append(p)
        for f in range(2, w // 2 + 1):
            if w % f:
                continue
            n, m = w // f, (1 << f) - 1
            others = [b for b, wb in names.items() if b != a and wb == f]
            for k in range(n + 1):
                chosen = set(rng.sample(range(n), k))
                for kind in ["zero", "ones"] + others:
                    p = base()
                    v = p[a]
                    for i in range(n):
                        field = (v >> (i * f)) & m
                        if i in chosen:
                            field = 0 if kind == "zero" else m if kind == "ones" else p[kind]
                        elif kind == "zero" and field == 0:
                            field = 1
                        elif kind == "ones" and field == m:
                            field = m - 1
                        elif kind not in ("zero", "ones") and field == p[kind]:
                            field ^= 1
                        v = (v & ~(m << (i * f))) | (field << (i * f))
                    p[a] = v
                    out.append(p)
        if len(out) > MAX_EXTRA:
            break
    return out[:MAX_EXTRA]


def predicate(target: Callable[[list[Env]], list[int]], names: dict[str, int], pts: list[Env],
              seed: str) -> Term | None:
    """A 1-bit target as a measure compared with constants, equal to it at every point (``pts`` and
    ``extra_points``), or None."""
    if not any(w >= 2 for w in names.values()):
        return None
    exhaustive = len(pts) == 1 << sum(names.values())
    every = pts if exhaustive else pts + extra_points(names, seed)
    want = target(every)
    if len(set(want)) < 2:
        return None
    for m in measures(names):
        s = shape([m.value(p) for p in every], want)
        if s is not None:
            return resize(m.predicate(s), 1)
    return None


__all__ = ["Measure", "extra_points", "measures", "ones_at_least", "predicate", "shape"]
