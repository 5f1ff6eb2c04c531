"""What is known of a value's bits from its form: the bits at and above ``high`` are zero, so are those below ``low``.

One analysis for the rewrite engine: the cost model reads it on a term (``cost.eff``/``cost.tz``: the partial
products a multiplier keeps, the adder width a sum needs) and the e-graph on its classes (``graph.known_zeros``:
every node of a class computes one value, so the strongest fact any node shows holds for the class). Both go
through ``transfer``, so a node is never priced on facts its class does not have. (They were two analyses
once and disagreed: the e-graph knew no low zero bits of a difference, ``(x << 2) - (y << 2)``.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .ir import COMPARES, REDUCES, Term


@dataclass(frozen=True)
class Bits:
    """``value < 2**high`` and ``value % 2**low == 0``; a value known zero is ``Bits(0, width)``."""

    high: int
    low: int


def unknown(w: int) -> Bits:
    return Bits(w, 0)


def of_const(v: int, w: int) -> Bits:
    return Bits(v.bit_length(), (v & -v).bit_length() - 1) if v else Bits(0, w)


def _fit(high: int, low: int, w: int) -> Bits:
    high, low = min(w, max(0, high)), min(w, max(0, low))
    return Bits(0, w) if low >= high else Bits(high, low)


def _zero(b: Bits) -> bool:
    return b.high == 0


def transfer(op: str, w: int, args: Sequence[Bits], widths: Sequence[int], amount: int | None = None) -> Bits:
    """The facts of a ``w``-bit node ``op`` from its operands' (``widths``: theirs; most significant first for a
    concat). ``amount``: a shift's constant amount (None: not a constant), a slice's low bit."""
    if op in COMPARES or op in REDUCES:
        return _fit(1, 0, w)
    if op in ("zext", "sext", "shl", "shr", "slice") and _zero(args[0]):
        return Bits(0, w)
    if op == "zext":
        return _fit(args[0].high, args[0].low, w)
    if op == "sext":  # a top bit that cannot be 1 extends as zeros
        return _fit(args[0].high if args[0].high < widths[0] else w, args[0].low, w)
    if op in ("shl", "shr", "slice"):
        if amount is None:
            return unknown(w)
        shift = amount if op == "shl" else -amount
        return _fit(args[0].high + shift, args[0].low + shift, w)
    if op == "concat":  # operand i sits above the operands after it
        below = [sum(widths[i + 1:]) for i in range(len(args))]
        high = max((b + a.high for b, a in zip(below, args, strict=True) if a.high), default=0)
        low = 0
        for a, aw in zip(reversed(args), reversed(widths), strict=True):  # zero parts from the bottom up
            low += min(a.low, aw)
            if a.low < aw:
                break
        return _fit(high, low, w)
    highs, lows = [a.high for a in args], [a.low for a in args]
    if op == "and":
        return _fit(min(highs), max(lows), w)
    if op in ("or", "xor"):
        return _fit(max(highs), min(lows), w)
    if op == "mux":
        return _fit(max(highs[1:]), min(lows[1:]), w)
    if op == "add":
        return _fit(max(highs) + 1, min(lows), w)
    if op == "sub":  # a difference can wrap (any high bit) but keeps the operands' common low zeros
        return _fit(w, min(lows), w)
    if op == "mul":
        return _fit(highs[0] + highs[1], lows[0] + lows[1], w)
    return unknown(w)


def of_term(t: Term, depth: int = 4) -> Bits:
    """The facts of ``t`` as far as its form shows, looking ``depth`` nodes down."""
    if t.op == "const":
        return of_const(t.value, t.width)
    if depth == 0 or not t.args:
        return unknown(t.width)
    args = [of_term(x, depth - 1) for x in t.args]
    amount: int | None = None
    if t.op == "slice":
        amount = t.value
    elif t.op in ("shl", "shr") and t.args[1].op == "const":
        amount = t.args[1].value
    return transfer(t.op, t.width, args, [x.width for x in t.args], amount)
