"""One bound Verilog expression (pyslang's elaboration) as an exact-width term (``ir.Term``).

pyslang binds every expression by the IEEE sizing rules: a context-determined operand carries an
explicit conversion to the context type, a self-determined one (shift amount, concatenation member,
reduction or logical operand, ``?:`` condition) keeps its own, and the right-hand side of an
assignment is converted to the target's width. Binding maps those conversions one for one, so a term
means exactly what Verilog computes:
- a widening conversion sign-extends (``sext``) when both its operand and its result are signed
  (1800 11.8.2: the propagated type decides; a signed operand in an unsigned context is zero-extended),
  else zero-extends; a narrowing one is a slice; a change of signedness alone is no operation;
- ``+ - * & | ^ ~`` and ``<<`` are the same bits signed or not; a compare of two signed operands is the
  unsigned compare of both with the top bit flipped; ``>>>`` of a signed value repeats its top bit;
- ``$signed``/``$unsigned`` are their argument's bits; a signed constant is its bits at its width.
Anything else raises ``Unliftable`` (never guessed): function calls, division, variable or
out-of-range selects, X/Z literals, memories, overridable parameters, hierarchical names.
"""

from __future__ import annotations

from typing import Any

from pyslang import SVInt, ast

from .ir import Term, TermError, const, node, var

E = ast.ExpressionKind
# a bound expression: pyslang's stubs type the base classes, and the code narrows a node by its ``.kind``
# (``.operand`` of a conversion, ``.conditions`` of a conditional), as hdl.parse's ``Syntax``
Bound = Any
BINARY = {"Add": "add", "Subtract": "sub", "Multiply": "mul", "BinaryAnd": "and", "BinaryOr": "or",
          "BinaryXor": "xor", "LogicalShiftLeft": "shl", "ArithmeticShiftLeft": "shl", "LogicalShiftRight": "shr",
          "ArithmeticShiftRight": "shr", "Equality": "eq", "Inequality": "ne", "LessThan": "lt",
          "LessThanEqual": "le", "GreaterThan": "gt", "GreaterThanEqual": "ge"}
ORDERS = frozenset({"lt", "le", "gt", "ge"})
REDUCE = {"BitwiseAnd": "redand", "BitwiseOr": "redor", "BitwiseXor": "redxor"}
INVERTED_REDUCE = {"BitwiseNand": "redand", "BitwiseNor": "redor", "BitwiseXnor": "redxor"}
REINTERPRET = frozenset({"$signed", "$unsigned"})
MAX_DEPTH = 100  # operators nested in one expression: deeper ones (a 1000-term chain) would exhaust the stack here


class Unliftable(ValueError):
    """An expression the terms cannot state exactly."""


def truthy(t: Term) -> Term:
    """A value as a condition: nonzero (a 1-bit value is its own truth)."""
    return t if t.width == 1 else node("redor", 1, t)


def resize(t: Term, w: int, signed: bool = False) -> Term:
    """Extend (by the top bit when ``signed``) or truncate to ``w`` bits (constants folded)."""
    if t.width == w:
        return t
    if w < t.width:
        return const(t.value, w) if t.op == "const" else node("slice", w, t)
    if signed:
        return node("sext", w, t)
    return const(t.value, w) if t.op == "const" else node("zext", w, t)


def flip_sign(t: Term) -> Term:
    """``t`` with its top bit inverted: the unsigned order of the results is the signed order of the values."""
    return node("xor", t.width, t, const(1 << (t.width - 1), t.width))


def arithmetic_shr(t: Term, amount: Term) -> Term:
    """``t >>> amount`` of a signed ``t``: its top bit fills from the left."""
    w = t.width
    top = node("slice", 1, t, value=w - 1)
    if amount.op == "const":
        k = min(amount.value, w)
        if k == 0:
            return t
        fill = node("concat", k, *([top] * k)) if k > 1 else top
        return fill if k == w else node("concat", w, fill, node("slice", w - k, t, value=k))
    inverted = node("not", w, node("shr", w, node("not", w, t), amount))
    return node("mux", w, top, inverted, node("shr", w, t, amount))


def constant(cv: object) -> int:
    """The bits of a known pyslang constant (a ConstantValue or an SVInt) at its own width."""
    sv = cv if isinstance(cv, SVInt) else getattr(cv, "value", None)
    if not isinstance(sv, SVInt) or sv.hasUnknown:
        raise Unliftable("not a known integer constant")
    return int(sv) % (1 << int(sv.bitWidth))


def index(cv: object) -> int:
    """A constant used as a number (a select's index, a replication count): known and non-negative."""
    sv = cv if isinstance(cv, SVInt) else getattr(cv, "value", None)
    if not isinstance(sv, SVInt) or sv.hasUnknown or int(sv) < 0:
        raise Unliftable("not a known non-negative constant")
    return int(sv)


def width(e: Bound) -> int:
    t = e.type
    if not t.isIntegral or t.bitWidth < 1:
        raise Unliftable(f"{t} is not a bit vector")
    return int(t.bitWidth)


def _position(i: int, left: int, right: int) -> int:
    """Bit position (from 0 at the least significant bit) of index ``i`` in a ``[left:right]`` vector."""
    return i - right if left >= right else right - i


def _op(e: Bound) -> str:
    return str(e.op).split(".")[-1]


class Binder:
    """Binds expressions of one module; ``ranges`` collects the declared ``[left:right]`` of the vectors read."""

    def __init__(self) -> None:
        self.ranges: dict[str, tuple[int, int]] = {}
        self.depth = 0

    def term(self, e: Bound) -> Term:
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise Unliftable(f"nested deeper than {MAX_DEPTH}")
            return self.node(e)
        finally:
            self.depth -= 1

    def node(self, e: Bound) -> Term:
        k = e.kind
        w = width(e)
        if k == E.IntegerLiteral:
            return const(constant(e.value), w)
        if k == E.UnbasedUnsizedIntegerLiteral:
            return const(constant(e.constant), w)
        if k == E.NamedValue:
            return self.named(e, w)
        if k == E.Conversion:
            inner = self.term(e.operand)
            return resize(inner, w, bool(e.operand.type.isSigned and e.type.isSigned))
        if k == E.BinaryOp:
            return self.binary(e, w)
        if k == E.UnaryOp:
            return self.unary(e, w)
        if k == E.ConditionalOp:
            conds = list(e.conditions)
            if len(conds) != 1 or conds[0].pattern is not None:
                raise Unliftable("conditional with patterns")
            return self.checked("mux", w, truthy(self.term(conds[0].expr)), self.term(e.left), self.term(e.right))
        if k == E.Concatenation:
            parts = [self.term(x) for x in e.operands]
            return parts[0] if len(parts) == 1 else node("concat", w, *parts)
        if k == E.Replication:
            inner = self.term(e.concat)
            n = index(e.count.constant)
            if n > 1 and inner.width == 1:  # a repeated bit is that bit extended: {k{x[n-1]}} above x is a sext
                return node("sext", w, inner)
            return inner if n == 1 else node("concat", w, *([inner] * n))
        if k in (E.RangeSelect, E.ElementSelect):
            return self.select(e, w)
        if k == E.Call and e.isSystemCall and e.subroutineName in REINTERPRET and len(e.arguments) == 1:
            inner = self.term(e.arguments[0])  # the same bits, retyped
            if inner.width != w:
                raise Unliftable(f"{e.subroutineName} of another width")
            return inner
        raise Unliftable(f"{str(k).split('.')[-1]} expression")

    def checked(self, op: str, w: int, *args: Term) -> Term:
        try:
            return node(op, w, *args)
        except TermError as err:  # pyslang sized it otherwise: say so rather than guess
            raise Unliftable(str(err)) from err

    def named(self, e: Bound, w: int) -> Term:
        sym = e.symbol
        if isinstance(sym, ast.ParameterSymbol):
            if not sym.isLocalParam:
                raise Unliftable(f"overridable parameter {sym.name}")
            return const(constant(sym.value), w)
        if not isinstance(sym, (ast.NetSymbol, ast.VariableSymbol)):
            raise Unliftable(f"{sym.name} is not a net or variable")
        if sym.type.hasFixedRange:
            r = sym.type.fixedRange
            self.ranges[sym.name] = (int(r.left), int(r.right))
        return var(sym.name, w)

    def binary(self, e: Bound, w: int) -> Term:
        name = _op(e)
        a, b = self.term(e.left), self.term(e.right)
        if name in ("LogicalAnd", "LogicalOr"):
            return node("and" if name == "LogicalAnd" else "or", 1, truthy(a), truthy(b))
        if name == "BinaryXnor":
            return node("not", w, self.checked("xor", w, a, b))
        if name not in BINARY:
            raise Unliftable(f"operator {name}")
        op = BINARY[name]
        if op in ORDERS and e.left.type.isSigned and e.right.type.isSigned:
            if a.width != b.width:
                raise Unliftable("signed compare of operands of two widths")
            return self.checked(op, w, flip_sign(a), flip_sign(b))
        if name == "ArithmeticShiftRight" and e.left.type.isSigned:
            if a.width != w:
                raise Unliftable("arithmetic shift of an operand of another width")
            return arithmetic_shr(a, b)
        return self.checked(op, w, a, b)

    def unary(self, e: Bound, w: int) -> Term:
        name = _op(e)
        a = self.term(e.operand)
        if name == "Plus":
            return self.checked("zext", w, a)
        if name in ("Minus", "BitwiseNot"):
            return self.checked("neg" if name == "Minus" else "not", w, a)
        if name in REDUCE:
            return node(REDUCE[name], 1, a)
        if name in INVERTED_REDUCE:
            return node("not", 1, node(INVERTED_REDUCE[name], 1, a))
        if name == "LogicalNot":
            return node("eq", 1, a, const(0, a.width))
        raise Unliftable(f"operator {name}")

    def select(self, e: Bound, w: int) -> Term:
        """A constant bit or part select of a one-dimensional vector, as a slice."""
        base = e.value
        if base.kind != E.NamedValue or not base.type.hasFixedRange:
            raise Unliftable("select of something other than a vector")
        r = base.type.fixedRange
        left, right = int(r.left), int(r.right)
        if abs(left - right) + 1 != base.type.bitWidth:
            raise Unliftable("select of a multi-dimensional array")
        if e.kind == E.ElementSelect:
            indices = [index(e.selector.constant)] * 2
        else:
            kind = str(e.selectionKind).split(".")[-1]
            i, j = index(e.left.constant), index(e.right.constant)
            indices = {"Simple": [i, j], "IndexedUp": [i, i + j - 1], "IndexedDown": [i - j + 1, i]}[kind]
        pos = [_position(x, left, right) for x in indices]
        lo, hi = min(pos), max(pos)
        if lo < 0 or hi >= base.type.bitWidth or hi - lo + 1 != w:
            raise Unliftable("select outside the vector")
        whole = self.term(base)
        return whole if w == whole.width else node("slice", w, whole, value=lo)
