"""Verilog datapath assignments lifted into exact-width terms (``ir.Term``), by pyslang's elaboration.

pyslang binds every expression by the IEEE sizing rules (1364-2005 and 1800 agree for unsigned
operands): a context-determined operand carries an explicit conversion to the context width, a
self-determined one (shift amount, concatenation member, reduction or logical operand, ``?:``
condition) keeps its own, and the right-hand side of an assignment is converted to the target's
width. Lifting maps those conversions to ``zext``/``slice`` one for one, so a term means exactly what
Verilog computes. What is lifted: ``assign name = expr;`` (one assignment, no delay or strength;
``{a, b}`` targets too), ``wire [..] name = expr;`` declarations, and ``always @*``/``always_comb``
blocks that are a single blocking ``name = expr;``. Anything the terms cannot say exactly leaves its
assignment out (never guessed): signed values, overridable parameters (then the whole module),
function calls, division, variable or out-of-range selects, X/Z literals, memories, hierarchical
names, struct members, generate blocks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from pyslang import SVInt, ast

from ..hdl.parse import K, Syntax, elaborate, nodes, parse
from .ir import Term, TermError, const, node, var

E = ast.ExpressionKind
# a bound expression or statement: pyslang's stubs type the base classes, and the code narrows a node by
# its ``.kind`` (``.operand`` of a conversion, ``.conditions`` of a conditional), as hdl.parse's ``Syntax``
Bound = Any
# how a target is written: ``assign``, a combinational ``always`` (a variable, re-emitted as
# ``always @*``) or a ``wire`` declaration's initializer (a net declaration assignment)
Kind = Literal["assign", "always", "net"]
# >>> of an unsigned value (signed ones are never lifted) fills with zeros, as >> does
BINARY = {"Add": "add", "Subtract": "sub", "Multiply": "mul", "BinaryAnd": "and", "BinaryOr": "or",
          "BinaryXor": "xor", "LogicalShiftLeft": "shl", "ArithmeticShiftLeft": "shl", "LogicalShiftRight": "shr",
          "ArithmeticShiftRight": "shr", "Equality": "eq", "Inequality": "ne", "LessThan": "lt",
          "LessThanEqual": "le", "GreaterThan": "gt", "GreaterThanEqual": "ge"}
REDUCE = {"BitwiseAnd": "redand", "BitwiseOr": "redor", "BitwiseXor": "redxor"}
INVERTED_REDUCE = {"BitwiseNand": "redand", "BitwiseNor": "redor", "BitwiseXnor": "redxor"}
MAX_DEPTH = 100  # operators nested in one expression: deeper ones (a 1000-term chain) would exhaust the stack here


class Unliftable(ValueError):
    """An expression the terms cannot state exactly."""


@dataclass(frozen=True)
class Lifted:
    """One lifted target: its name, its value as a term of its width, and where it is written: the
    span that assigns it (the whole ``assign ...;`` or ``always`` block, or the `` = expr`` of a
    ``wire`` declaration) and the end of that statement. The targets of one statement
    (``assign {cout, sum} = ...``) share its span and slice its right-hand side."""

    target: str
    term: Term
    start: int
    end: int
    kind: Kind
    anchor: int  # end of the whole statement (the declaration of a ``net``)


@dataclass(frozen=True)
class LiftedModule:
    name: str
    assigns: tuple[Lifted, ...]
    seen: int  # assignments of the forms above, lifted or not
    widths: dict[str, int] = field(default_factory=dict)  # every net and variable, in bits
    ranges: dict[str, tuple[int, int]] = field(default_factory=dict)  # declared [left:right] of vectors


def truthy(t: Term) -> Term:
    """A value as a condition: nonzero (a 1-bit value is its own truth)."""
    return t if t.width == 1 else node("redor", 1, t)


def _resize(t: Term, w: int) -> Term:
    """Zero-extend or truncate to ``w`` bits (constants folded)."""
    if t.width == w:
        return t
    if t.op == "const":
        return const(t.value, w)
    return node("zext", w, t) if w > t.width else node("slice", w, t)


def _constant(cv: object) -> int:
    """The value of a pyslang constant (a ConstantValue or an SVInt) when known and non-negative."""
    sv = cv if isinstance(cv, SVInt) else getattr(cv, "value", None)
    if not isinstance(sv, SVInt) or sv.hasUnknown:
        raise Unliftable("not a known integer constant")
    value = int(sv)
    if value < 0:
        raise Unliftable("negative constant")
    return value


def _width(e: Bound) -> int:
    t = e.type
    if not t.isIntegral or t.bitWidth < 1:
        raise Unliftable(f"{t} is not a bit vector")
    return int(t.bitWidth)


def _position(index: int, left: int, right: int) -> int:
    """Bit position (from 0 at the least significant bit) of ``index`` in a ``[left:right]`` vector."""
    return index - right if left >= right else right - index


class _Lifter:
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
        w = _width(e)
        if k == E.IntegerLiteral:
            return const(_constant(e.value), w)
        if k == E.UnbasedUnsizedIntegerLiteral:
            return const(_constant(e.constant), w)
        if e.type.isSigned:  # only a constant that pyslang folded to a non-negative value
            return const(_constant(e.constant), w)
        if k == E.NamedValue:
            return self.named(e, w)
        if k == E.Conversion:
            return _resize(self.term(e.operand), w)
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
            n = _constant(e.count.constant)
            return inner if n == 1 else node("concat", w, *([inner] * n))
        if k in (E.RangeSelect, E.ElementSelect):
            return self.select(e, w)
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
            return const(_constant(sym.value), w)
        if not isinstance(sym, (ast.NetSymbol, ast.VariableSymbol)) or sym.type.isSigned:
            raise Unliftable(f"{sym.name} is not an unsigned net or variable")
        if sym.type.hasFixedRange:
            r = sym.type.fixedRange
            self.ranges[sym.name] = (int(r.left), int(r.right))
        return var(sym.name, w)

    def binary(self, e: Bound, w: int) -> Term:
        name = str(e.op).split(".")[-1]
        a, b = self.term(e.left), self.term(e.right)
        if name in ("LogicalAnd", "LogicalOr"):
            return node("and" if name == "LogicalAnd" else "or", 1, truthy(a), truthy(b))
        if name == "BinaryXnor":
            return node("not", w, self.checked("xor", w, a, b))
        if name not in BINARY:
            raise Unliftable(f"operator {name}")
        return self.checked(BINARY[name], w, a, b)

    def unary(self, e: Bound, w: int) -> Term:
        name = str(e.op).split(".")[-1]
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
            indices = [_constant(e.selector.constant)] * 2
        else:
            kind = str(e.selectionKind).split(".")[-1]
            i, j = _constant(e.left.constant), _constant(e.right.constant)
            indices = {"Simple": [i, j], "IndexedUp": [i, i + j - 1], "IndexedDown": [i - j + 1, i]}[kind]
        pos = [_position(x, left, right) for x in indices]
        lo, hi = min(pos), max(pos)
        if lo < 0 or hi >= base.type.bitWidth or hi - lo + 1 != w:
            raise Unliftable("select outside the vector")
        whole = self.term(base)
        return whole if w == whole.width else node("slice", w, whole, value=lo)


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _words(text: str) -> list[str]:
    return _COMMENT.sub(" ", text).split()


def span(stmt: Syntax, text: str) -> tuple[int, int] | None:
    """Offsets of a statement in ``text``, or None when its text is not literally there (a macro
    expansion). As ``search.moves.verilog.span``, which this package cannot import: the moves import it."""
    r = stmt.sourceRange
    s, e = int(r.start.offset), int(r.end.offset)
    if not 0 <= s <= e <= len(text) or _words(text[s:e]) != _words(str(stmt)):
        return None
    return s, e


@dataclass(frozen=True)
class _Found:
    """An assignment as pyslang bound it: the targets (None when not whole unsigned vectors), the
    right-hand side, the syntax it is written in and the statement that syntax belongs to."""

    targets: list[tuple[str, int]] | None
    rhs: Bound
    written: Syntax
    statement: Syntax
    kind: Kind


def _continuous(sym: ast.ContinuousAssignSymbol, widths: dict[str, int]) -> _Found | None:
    """The assignment of an ``assign`` statement holding exactly one, without delay or strength."""
    stmt: Syntax = sym.syntax.parent if sym.syntax is not None else None
    if stmt is None or stmt.kind != K.ContinuousAssign or len(nodes(stmt.assignments)) != 1:
        return None
    if stmt.delay is not None or stmt.strength is not None:
        return None
    a: Bound = sym.assignment
    return _Found(_targets(a.left, widths), a.right, stmt, stmt, "assign")


def _combinational(sym: ast.ProceduralBlockSymbol, widths: dict[str, int]) -> _Found | None:
    """The one blocking assignment of an ``always @*`` or ``always_comb`` block, else None."""
    kind = str(sym.procedureKind).split(".")[-1]
    s: Bound = sym.body
    if kind == "Always" and s.kind == ast.StatementKind.Timed:
        if s.timing.kind != ast.TimingControlKind.ImplicitEvent:
            return None
        s = s.stmt
    elif kind != "AlwaysComb":
        return None
    if s.kind == ast.StatementKind.Block:
        if s.blockSymbol is not None:
            return None  # a named block may declare variables
        s = s.body
    if s.kind != ast.StatementKind.ExpressionStatement or s.expr.kind != E.Assignment or s.expr.isNonBlocking:
        return None
    syn = s.expr.syntax
    if syn is None or syn.kind != K.AssignmentExpression:
        return None  # compound assignments (+=) and the like
    return _Found(_targets(s.expr.left, widths), s.expr.right, sym.syntax, sym.syntax, "always")


def _net(sym: ast.NetSymbol) -> _Found | None:
    """``wire [..] n = expr;``: a continuous assignment written in the declaration (plain ``wire``, no
    delay or strength); a variable's initializer (``logic v = ...``) is an initial value, never this."""
    init: Bound = sym.initializer
    d: Syntax = sym.syntax
    decl: Syntax = d.parent if d is not None else None
    if init is None or decl is None or decl.kind != K.NetDeclaration or d.initializer is None:
        return None
    if decl.delay is not None or decl.strength is not None or str(sym.netType.netKind).split(".")[-1] != "Wire":
        return None
    t = sym.type
    targets = None if t.isSigned or not t.isIntegral else [(str(sym.name), int(t.bitWidth))]
    return _Found(targets, init, d.initializer, decl, "net")


def _assignments(body: ast.InstanceBodySymbol, widths: dict[str, int]) -> Iterator[_Found]:
    for m in body:
        found = None
        if isinstance(m, ast.ContinuousAssignSymbol):
            found = _continuous(m, widths)
        elif isinstance(m, ast.ProceduralBlockSymbol):
            found = _combinational(m, widths)
        elif isinstance(m, ast.NetSymbol):
            found = _net(m)
        if found is not None:
            yield found


def _targets(left: Bound, widths: dict[str, int]) -> list[tuple[str, int]] | None:
    """The whole unsigned nets or variables an assignment writes (``y`` or ``{cout, sum}``) and their
    widths, most significant first; None for anything else (a bit or part of a vector)."""
    parts = list(left.operands) if left.kind == E.Concatenation else [left]
    if any(p.kind != E.NamedValue or p.type.isSigned or not p.type.isIntegral for p in parts):
        return None
    out = [(str(p.symbol.name), int(p.type.bitWidth)) for p in parts]
    return out if all(widths.get(n) == w for n, w in out) else None


def lift_body(body: ast.InstanceBodySymbol, text: str) -> LiftedModule:
    """Every liftable assignment of one elaborated module body (its source is ``text``)."""
    widths = {m.name: int(m.type.bitWidth) for m in body
              if isinstance(m, (ast.NetSymbol, ast.VariableSymbol)) and m.type.isIntegral}
    found = list(_assignments(body, widths))
    if any(isinstance(p, ast.ParameterSymbol) and not p.isLocalParam for p in body.parameters):
        return LiftedModule(body.name, (), len(found), widths)
    lifter = _Lifter()
    out: list[Lifted] = []
    for f in found:
        where, statement = span(f.written, text), span(f.statement, text)
        if where is None or statement is None or f.targets is None:
            continue
        try:
            rhs = lifter.term(f.rhs)
        except (Unliftable, TermError):
            continue
        if rhs.width != sum(w for _, w in f.targets):
            continue
        lo = rhs.width
        for name, w in f.targets:  # most significant first, as in the concatenation
            lo -= w
            part = rhs if w == rhs.width else node("slice", w, rhs, value=lo)
            out.append(Lifted(name, part, where[0], where[1], f.kind, statement[1]))
    names = [x.target for x in out]
    unique = tuple(x for x in out if names.count(x.target) == 1)  # two drivers: neither is a function
    return LiftedModule(body.name, unique, len(found), widths, lifter.ranges)


def lift_text(text: str, tree: Syntax | None = None) -> list[LiftedModule]:
    """Every module of ``text`` (its parsed ``tree`` when the caller has it) with its lifted assignments.
    Each module definition is read once, from a top instance or the first instance of it below one."""
    tree = tree if tree is not None else parse(text)
    comp = elaborate([tree])
    out: dict[str, LiftedModule] = {}
    stack = list(comp.getRoot().topInstances)
    while stack:
        inst = stack.pop(0)
        body = inst.body
        if body.name in out:
            continue
        out[body.name] = lift_body(body, text)
        stack += [m for m in body if isinstance(m, ast.InstanceSymbol)]
    return list(out.values())
