"""The rewrite engine's per-node cost, calibrated against real synthesis (``costs.json``).

``area_cost(t)`` is the area of ONE node of a term in µm² of OSU018 standard cells: what Yosys 0.23 and
ABC map that operator to, alone, at hh's default recipe. Summed over a DAG (each shared node once) it
ranks equivalent datapaths as synthesis does (results/costmodel.md: 11 of 12 QoR pairs, 90% of pairs of
random DAGs) but over-states a whole design's area (median x1.3: ABC optimises across nodes, which a
per-node price cannot see); ``delay_cost(t)`` is the node's own input-to-output delay in ns (OpenSTA),
for a longest-path sum. Wiring costs nothing: ``var const zext sext slice concat``, shifts by a constant and
any node whose operands are all constants (the engine folds them) are 0.

Each model is a line in a size ``x`` or in ``x log2(x+1)`` (``Fit``, ``parts``): the width for bitwise,
add/sub and mux; the partial-product bits for mul; the operand width for compares and
reductions; width times the shift stages for a shift by a variable amount; for a multiply by a
constant, the widths of the adders Yosys builds, one per 1 of the constant above its lowest, so
``x * 8`` is free and ``x * 231`` (six ones) costs five adders: the engine's shift-add rewrite pays.
Operators with one constant operand (add/sub, compares, a constant shifted by a variable) have their
own measured models (``add_k``, ``eq_k``, ``lt_k``, ``shl_k``); bitwise with a constant is wiring.

Regenerate the table with ``python tools/calibrate_cost.py`` (it records the liberty, recipe and Yosys
version it came from, and the raw samples); ``results/costmodel.md`` shows the fit and its validation.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any, Literal, TypedDict

if TYPE_CHECKING:
    from ..recipe import KnobValue

from ..errors import HHError
from .bits import of_term
from .ir import BINARY, COMPARES, REDUCES, SHIFTS, UNARY, Term

COSTS = "costs.json"
FREE = frozenset({"var", "const", "zext", "sext", "slice", "concat"})
# every model the table must hold: one per operator, plus those with a constant operand
MIRROR = {"gt": "lt", "ge": "le"}
MODELS = frozenset(BINARY | UNARY | SHIFTS | COMPARES | REDUCES | {"mux", "add_k", "eq_k", "lt_k", "shl_k", "mul_k"})
Scale = Literal["lin", "log2", "xlog2"]
SCALES: tuple[Scale, ...] = ("lin", "log2", "xlog2")


class CostTableError(HHError):
    """``costs.json`` is missing or unreadable: an installation fault (exit 3)."""


@dataclass(frozen=True)
class Fit:
    """``sum(coef[i] * s**i)`` with ``s`` the size ``x`` (``lin``), ``log2 x`` (``log2``: a delay through a
    tree) or ``x log2(x + 1)`` (``xlog2``: a multiplier's partial products and the adders that sum them)."""

    coef: tuple[float, ...]
    scale: Scale = "lin"
    r2: float | None = None

    def __call__(self, x: float) -> float:
        s = {"lin": x, "log2": math.log2(max(x, 1.0)), "xlog2": x * math.log2(x + 1.0)}[self.scale]
        return sum(c * s**i for i, c in enumerate(self.coef))


class CostSource(TypedDict, total=False):
    """How ``costs.json`` was made (``tools/calibrate_cost.py`` writes every key; read as written)."""

    unit_area: str
    unit_delay: str
    liberty: str
    liberty_sha256: str
    yosys: str  # its version line
    sta: str  # OpenSTA's version
    flow: str
    recipe: dict[str, KnobValue]
    date: str
    regenerate: str  # the command that rewrites the table
    note: str  # the calibration's size, time and load


@dataclass(frozen=True)
class CostTable:
    area: dict[str, Fit]  # µm² per node
    delay: dict[str, Fit]  # ns per node
    source: CostSource


def eff(t: Term, depth: int = 4) -> int:
    """The low bits of ``t`` that can be non-zero as far as its form shows (a zero-extension's operand,
    a sum one bit wider than its widest addend, ...), looking ``depth`` nodes down; at most its width
    (``bits``: the analysis the e-graph's classes use too)."""
    return of_term(t, depth).high


def tz(t: Term, depth: int = 4) -> int:
    """The low bits of ``t`` that are zero as far as its form shows (a shift left by a constant, ...)."""
    return of_term(t, depth).low


def sign_source(x: Term) -> Term | None:
    """The value ``x`` sign-extends: a ``sext``'s operand, or ``v`` of ``{{k{v[n-1]}}, v}`` written out."""
    if x.op == "sext":
        return x.args[0]
    if x.op == "concat" and len(x.args) == 2:
        high, v = x.args
        top = high.args[0] if high.op == "sext" and high.args[0].width == 1 else high
        if top.op == "slice" and top.width == 1 and top.value == v.width - 1 and top.args[0] == v:
            return v
    return None


def partial_products(a: Term, b: Term, w: int) -> int:
    """Partial-product bits of ``a * b`` kept in w bits (those of weight below 2**w that can be non-zero)."""
    lo, hi = tz(b), eff(b)
    return sum(max(0, min(hi, w - i) - lo) for i in range(tz(a), min(eff(a), w)))


def parts(t: Term) -> list[tuple[str, float]]:
    """The models that price node ``t`` and their sizes; empty when the node is wiring.

    Bits a node's form shows to be constant cost nothing (Yosys' ``wreduce`` and ABC remove that
    logic): a 32-bit add of two 8-bit values is an 8-bit adder and a carry into a 9th bit, low bits
    of a shifted operand pass through, a multiply is priced by the partial-product bits that remain."""
    op, w, a = t.op, t.width, t.args
    consts = [x.op == "const" for x in a]
    if op in FREE or (a and all(consts)) or (op == "mux" and consts[0]):
        return []
    if op in SHIFTS:
        if consts[1]:
            return []
        if consts[0]:
            return [("shl_k", w)]  # a constant shifted by a variable amount: a decoder
        return [(op, w * max(1, min(a[1].width, (w - 1).bit_length())))]
    if op == "mul":
        if not any(consts):  # of two sign extensions: a signed multiplier of the narrow operands
            x, y = (a[0].args[0], a[1].args[0]) if a[0].op == a[1].op == "sext" else a
            return [("mul", partial_products(x, y, w))]
        k = a[0].value if consts[0] else a[1].value
        ones = [p for p in range(w) if k >> p & 1]  # Yosys 0.23 adds one row per 1 of the constant
        return [("mul_k", sum(w - p for p in ones[1:]))] if len(ones) > 1 else []
    if op in ("and", "or", "xor"):
        if any(consts):
            return []
        e = [eff(x) for x in a]
        return [(op, min(e) if op == "and" else max(e))]
    sources = [s for s in map(sign_source, a) if s is not None]
    if op in ("add", "sub") and len(sources) == 2:
        # of two sign extensions (written out or not): the bits above the widest operand's and one more
        # repeat that bit, and synthesis builds the narrow adder (fir4's 13-bit difference of 9-bit values
        # maps as the 10-bit one: the same netlist)
        return [(op, min(w, max(s.width for s in sources) + 1))]
    if op == "add":
        e, z = sorted(eff(x) for x in a), max(tz(x) for x in a)
        top = min(w, e[1] + 1)
        if any(consts):
            return [("add_k", max(1, top - z))]
        full = max(0, e[0] - z)  # both addends may be non-zero here; above, a carry runs into the wider one
        return [p for p in (("add", full), ("add_k", top - max(e[0], z))) if p[1] > 0] or [("add", 1)]
    if op == "sub":
        lo = tz(a[1])  # below the subtrahend's lowest possible 1 no borrow arises
        return [("add_k" if any(consts) else "sub", max(1, w - lo))]
    if op in COMPARES:
        n = max(eff(x) for x in a)
        if any(consts):
            return [("eq_k" if op in ("eq", "ne") else "lt_k", n)]
        # a > b is b < a: one circuit, priced by one model, so swapping operands is never a "gain"
        # (the separately measured gt and lt differ by ABC's noise, 13% at 16 bits)
        return [(MIRROR.get(op, op), n)]
    if op in REDUCES:
        return [(op, a[0].width)]
    if op == "mux":
        if consts[1] and consts[2]:
            return []  # each bit is 0, 1, the select or its inverse
        if consts[1] or consts[2]:  # s ? x : k is x & s (k's 0 bits) or x | ~s (its 1 bits): one gate a bit
            return [("and", eff(a[2] if consts[1] else a[1]))]
        return [(op, max(eff(a[1]), eff(a[2])))]
    if op == "not":
        return [(op, eff(a[0]))]  # the inverted zero bits are constant ones
    return [(op, w)]  # neg


def area_cost(t: Term) -> float:
    """µm² of OSU018 cells for node ``t`` alone (its operands not included); never negative."""
    fits = table().area
    return sum(max(0.0, fits[k](x)) for k, x in parts(t))


def delay_cost(t: Term) -> float:
    """ns from the node's inputs to its output (OpenSTA on the operator alone); never negative."""
    fits = table().delay
    return sum(max(0.0, fits[k](x)) for k, x in parts(t))


def _fits(raw: Any, field: str) -> dict[str, Fit]:
    if not isinstance(raw, dict):
        raise CostTableError(f"{COSTS}: field {field!r} is not an object; regenerate: python tools/calibrate_cost.py")
    missing = sorted(MODELS - raw.keys())
    if missing:
        raise CostTableError(f"{COSTS}: {field} has no model for {', '.join(missing)}; "
                             "regenerate: python tools/calibrate_cost.py")
    out: dict[str, Fit] = {}
    for key, m in raw.items():
        where = f"{COSTS}: {field}.{key}"
        coef = m.get("coef") if isinstance(m, dict) else None
        if (not isinstance(coef, list) or not 1 <= len(coef) <= 3
                or not all(isinstance(c, int | float) and math.isfinite(c) for c in coef)):
            raise CostTableError(f"{where}.coef: expected 1 to 3 finite numbers")
        scale = m.get("scale", "lin")
        if scale not in SCALES:
            raise CostTableError(f"{where}.scale: {scale!r} is not one of {', '.join(SCALES)}")
        r2 = m.get("r2")
        out[key] = Fit(tuple(float(c) for c in coef), scale, float(r2) if isinstance(r2, int | float) else None)
    return out


def parse_table(raw: Any) -> CostTable:
    """The table from ``costs.json``'s decoded JSON; ``CostTableError`` naming the bad field."""
    if not isinstance(raw, dict):
        raise CostTableError(f"{COSTS}: not a JSON object")
    source: CostSource = raw["source"] if isinstance(raw.get("source"), dict) else {}  # JSON as the tool wrote it
    return CostTable(_fits(raw.get("area"), "area"), _fits(raw.get("delay"), "delay"), source)


@functools.cache
def table() -> CostTable:
    """The packaged table, read once."""
    try:
        text = resources.files(__package__).joinpath(COSTS).read_text(encoding="utf-8")
    except OSError as exc:
        raise CostTableError(f"{COSTS}: cannot read ({exc.strerror or exc}); "
                             "regenerate: python tools/calibrate_cost.py") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CostTableError(f"{COSTS}: line {exc.lineno}: not JSON ({exc.msg})") from None
    return parse_table(raw)
