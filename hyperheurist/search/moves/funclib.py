"""The word-level functions ``function_recognition`` matches a combinational cone against.

Each ``Form`` is one function of one or two of a cone's input words: its value computed directly in
Python (fast: a form is ruled out on a few points before its term is ever built) and its best
word-level term in the e-graph's IR (``egraph.ir``), which the lowering writes back as Verilog:
- two words ``a``, ``b`` (every ordered pair): ``|a-b|`` as ONE subtractor whose borrow selects the
  negation, unsigned and signed ``min``/``max`` (a compare and a mux), ``a*b``, saturating ``a+b`` and
  ``a-b`` (the carry/borrow of the one adder selects the bound), ``a << b``, ``a >> b``, rotates by
  ``b`` (when ``b`` is narrower than ``a``'s shift range);
- one word ``x``: population count (a balanced adder tree of its bits), trailing and leading zero
  counts and the index of the highest set bit (a binary search: one or-reduction and one mux level
  per index bit, where a priority chain has one level per input bit), the lowest set bit ``x & -x``,
  bit reversal, and-/or-/xor-reduction.
The compares, sums and differences with carry, borrow and carry-in are ``loop_lift``'s operations,
reused as forms. What value a unary form takes at ``x == 0`` differs between spellings (a zero count of
``W`` or ``0``, an index of 0 or all ones): the matcher accepts a form that differs from the target at
``x == 0`` only, writing the target's own value there by a mux (``override``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ...egraph.bind import flip_sign, resize
from ...egraph.ir import Term, const, evaluator, node, var
from .looplift import operations

Env = dict[str, int]
MAX_SHIFT_BITS = 7  # a shift amount wider than this is no barrel shifter worth writing


@dataclass(frozen=True)
class Form:
    """One candidate: a label, the operand names, its value at a point, and its term (natural width)."""

    label: str
    operands: tuple[str, ...]
    value: Callable[[Env], int]
    build: Callable[[], Term]


def clog2(n: int) -> int:
    return max(1, (n - 1).bit_length())


def popcount_term(x: Term) -> Term:
    """The number of ones of ``x`` as a balanced tree of adders, each one bit wider than its operands."""
    level = [node("slice", 1, x, value=i) if x.width > 1 else x for i in range(x.width)]
    while len(level) > 1:
        nxt = []
        for i in range(0, len(level) - 1, 2):
            w = max(level[i].width, level[i + 1].width) + 1
            nxt.append(node("add", w, resize(level[i], w), resize(level[i + 1], w)))
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    need = x.width.bit_length()
    return resize(level[0], need)


def _unsigned(a: Term, n: int) -> Term:
    return resize(a, n)


def _binary(a: str, b: str, wa: int, wb: int) -> Iterator[Form]:
    n = max(wa, wb)
    mask = (1 << n) - 1
    x, y = var(a, wa), var(b, wb)

    def diff() -> Term:
        return node("sub", n + 1, resize(x, n + 1), resize(y, n + 1))

    def absdiff() -> Term:
        d = diff()
        low = node("slice", n, d, value=0)
        return node("mux", n, node("slice", 1, d, value=n), node("neg", n, low), low)

    yield Form("absdiff", (a, b), lambda e: abs(e[a] - e[b]), absdiff)
    for big, label in ((False, "min"), (True, "max")):
        def pick(big: bool = big) -> Term:
            xs, ys = _unsigned(x, n), _unsigned(y, n)
            less = node("lt", 1, xs, ys)
            return node("mux", n, less, ys, xs) if big else node("mux", n, less, xs, ys)
        yield Form(label, (a, b), (lambda e: max(e[a], e[b])) if big else (lambda e: min(e[a], e[b])), pick)
        if wa == wb and n >= 2:
            def spick(big: bool = big) -> Term:
                less = node("lt", 1, flip_sign(x), flip_sign(y))
                return node("mux", n, less, y, x) if big else node("mux", n, less, x, y)
            top = 1 << (n - 1)

            def sval(e: Env, big: bool = big, top: int = top) -> int:
                p, q = e[a] ^ top, e[b] ^ top  # the unsigned order of these is the signed order
                return e[a] if (p > q) == big or p == q else e[b]
            yield Form("s" + label, (a, b), sval, spick)
    if a < b:  # commutative: one order is enough
        yield Form("hamming", (a, b), lambda e: bin(e[a] ^ e[b]).count("1"),
                   lambda: popcount_term(node("xor", n, resize(x, n), resize(y, n))))
        yield Form("mul", (a, b), lambda e: e[a] * e[b],
                   lambda: node("mul", wa + wb, resize(x, wa + wb), resize(y, wa + wb)))

        def satadd() -> Term:
            s = node("add", n + 1, resize(x, n + 1), resize(y, n + 1))
            return node("mux", n, node("slice", 1, s, value=n), const(mask, n), node("slice", n, s, value=0))
        yield Form("satadd", (a, b), lambda e: min(e[a] + e[b], mask), satadd)

    def satsub() -> Term:
        d = diff()
        return node("mux", n, node("slice", 1, d, value=n), const(0, n), node("slice", n, d, value=0))
    yield Form("satsub", (a, b), lambda e: max(e[a] - e[b], 0), satsub)
    if 2 <= wb <= MAX_SHIFT_BITS and wa >= 2:
        m = (1 << wa) - 1
        yield Form("shl", (a, b), lambda e: (e[a] << e[b]) & m, lambda: node("shl", wa, x, y))
        yield Form("shr", (a, b), lambda e: e[a] >> e[b], lambda: node("shr", wa, x, y))
        if (1 << wb) <= wa and wa & (wa - 1) == 0 and (1 << wb) == wa:
            def rot(left: bool) -> Term:
                k = clog2(wa + 1)
                s = resize(y, k)
                back = node("sub", k, const(wa, k), s)
                return node("or", wa, node("shl" if left else "shr", wa, x, s),
                            node("shr" if left else "shl", wa, x, back))
            yield Form("rotl", (a, b), lambda e: ((e[a] << e[b]) | (e[a] >> (wa - e[b]))) & m, lambda: rot(True))
            yield Form("rotr", (a, b), lambda e: ((e[a] >> e[b]) | (e[a] << (wa - e[b]))) & m, lambda: rot(False))


def _pow2(x: Term) -> Term:
    w = 1 << clog2(x.width)
    return resize(x, max(w, 2))


def search(x: Term, low_first: bool) -> Term:
    """The index of the lowest (``low_first``) or highest set bit of a nonzero ``x`` by binary search:
    is the half searched first empty? then the other half; one mux level and one or-reduction per
    index bit (``x`` zero-extended to a power of two: the extra bits are never set)."""
    y, bits = _pow2(x), []
    while y.width > 2:
        h = y.width // 2
        lo, hi = node("slice", h, y, value=0), node("slice", h, y, value=h)
        if low_first:
            b = node("not", 1, node("redor", 1, lo))
            y = node("mux", h, b, hi, lo)
        else:
            b = node("redor", 1, hi)
            y = node("mux", h, b, hi, lo)
        bits.append(b)
    bits.append(node("not", 1, node("slice", 1, y, value=0)) if low_first else node("slice", 1, y, value=1))
    return bits[0] if len(bits) == 1 else node("concat", len(bits), *bits)


def _tz(v: int, w: int) -> int:
    return (v & -v).bit_length() - 1 if v else w


def _unary(a: str, w: int) -> Iterator[Form]:
    x = var(a, w)
    m = (1 << w) - 1
    k = clog2(w)
    yield Form("popcount", (a,), lambda e: bin(e[a]).count("1"), lambda: popcount_term(x))
    yield Form("tzc", (a,), lambda e: _tz(e[a], w) if e[a] else (1 << k) - 1,  # at 0: the search's all ones
               lambda: search(x, True))
    yield Form("msb_index", (a,), lambda e: e[a].bit_length() - 1 if e[a] else 0, lambda: search(x, False))
    yield Form("lzc", (a,), lambda e: w - e[a].bit_length() if e[a] else (w - 1) & ((1 << (k + 1)) - 1),
               lambda: node("sub", k + 1, const(w - 1, k + 1), resize(search(x, False), k + 1)))
    yield Form("lowest_bit", (a,), lambda e: e[a] & -e[a] & m, lambda: node("and", w, x, node("neg", w, x)))
    yield Form("reverse", (a,), lambda e: int(format(e[a], f"0{w}b")[::-1], 2),
               lambda: node("concat", w, *[node("slice", 1, x, value=i) for i in range(w)]))
    yield Form("redand", (a,), lambda e: int(e[a] == m), lambda: node("redand", 1, x))
    yield Form("redor", (a,), lambda e: int(e[a] != 0), lambda: node("redor", 1, x))
    yield Form("redxor", (a,), lambda e: bin(e[a]).count("1") & 1, lambda: node("redxor", 1, x))


def forms(names: dict[str, int]) -> Iterator[Form]:
    """Every form over the cone's inputs: unary ones of each word, binary ones of each ordered pair of
    words, then ``loop_lift``'s compares and sums (with carries)."""
    words = [n for n, w in names.items() if w >= 2]
    for a in words:
        yield from _unary(a, names[a])
    for a, b in itertools.permutations(words, 2):
        yield from _binary(a, b, names[a], names[b])
    for t, _ in operations(names, True):
        yield _of_term(t, tuple(names))


def _of_term(t: Term, operands: tuple[str, ...]) -> Form:
    return Form(t.op, operands, evaluator(t), lambda: t)


def override(form: Form, target: list[int], values: list[int], pts: list[Env], width: int) -> Term | None:
    """The form's term at the target's width where it equals the target at every point, or differs only
    where its one operand is 0 and the target is one constant at all those points (a mux writes it)."""
    mask = (1 << width) - 1
    wrong = [i for i, (t, v) in enumerate(zip(target, values, strict=True)) if t != v & mask]
    if not wrong:
        return resize(form.build(), width)
    if len(form.operands) != 1:
        return None
    name = form.operands[0]
    zero = [i for i, p in enumerate(pts) if p[name] == 0]
    if not set(wrong) <= set(zero) or len({target[i] for i in zero}) != 1:
        return None
    term = form.build()
    x = next(v for v in _vars(term) if v.name == name)
    return node("mux", width, node("eq", 1, x, const(0, x.width)), const(target[wrong[0]], width),
                resize(term, width))


def _vars(t: Term) -> Iterator[Term]:
    todo = [t]
    while todo:
        x = todo.pop()
        if x.op == "var":
            yield x
        todo += x.args


__all__ = ["Form", "forms", "override", "popcount_term", "search"]
