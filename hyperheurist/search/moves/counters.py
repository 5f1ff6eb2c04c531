"""Wrap-around counters: shrink the register to its reachable range, fold comparisons it can never meet.

A counter is a non-port register ``c`` (one declarator, unsigned) whose every assignment is a
constant no greater than K, or ``c <= c + 1`` reached only in the ``else`` of ``if (c == K)``.
From reset (every constant assignment is <= K) the counter then never exceeds K: an increment
happens only when c != K, so c < K and c + 1 <= K. Under that invariant, which holds for every state
reachable after the constant (reset) assignment has run, as the gates' bounded proof and simulation
from reset check:

- counter_width: the register needs only bitlen(K) bits; every use reads it whole, so the zero-
  extended narrow value equals the wide one;
- counter_dead_compare: ``c == L`` with L > K is always 0 (``!=`` always 1), so the logic it
  guards is dead and synthesis removes it.

Reaching only the states after reset is the assumption a designer makes for the same edit; a design
that is never reset is not matched (a constant assignment is required).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..state import MoveContext
from .expr import Syntax, identifier, literal, replace, unparen
from .rtl import RtlMove
from .verilog import Edit, K, modules, nodes, walk

ASSIGN = (K.NonblockingAssignmentExpression, K.AssignmentExpression)
# uses in which a narrower register reads as the same value (context-determined or value-only)
VALUE_USES = {
    K.EqualityExpression, K.InequalityExpression, K.LessThanExpression, K.LessThanEqualExpression,
    K.GreaterThanExpression, K.GreaterThanEqualExpression, K.AddExpression, K.NonblockingAssignmentExpression,
    K.AssignmentExpression, K.ConditionalPattern, K.ParenthesizedExpression, K.SignalEventExpression,
}


def _value_uses_only(mod: Syntax, name: str) -> bool:
    """Every reference reads the whole value in a width-insensitive place (no concatenation, port, select)."""
    for n in walk(mod):
        if n.kind == K.IdentifierSelectName and n.identifier.valueText == name:
            return False
        if n.kind == K.IdentifierName and n.identifier.valueText == name and (
                n.parent is None or n.parent.kind not in VALUE_USES):
            return False
    return True


def _is_name(node: Syntax, name: str) -> bool:
    return identifier(node) == name


def _equals_const(pred: Syntax, name: str) -> int | None:
    """K when the predicate is exactly ``name == K`` (not a conjunction: its else would not imply !=)."""
    conds = nodes(pred.conditions)
    if len(conds) != 1:
        return None
    e = unparen(conds[0].expr)
    if e.kind != K.EqualityExpression:
        return None
    for a, b in ((e.left, e.right), (e.right, e.left)):
        lit = literal(unparen(b))
        if _is_name(a, name) and lit is not None and lit[0] >= 0:
            return lit[0]
    return None


def _guard_limit(node: Syntax, name: str) -> int | None:
    """K when ``node`` sits in the else branch of ``if (name == K)``."""
    p = node.parent
    while p is not None:
        if p.kind == K.ElseClause and p.parent is not None and p.parent.kind == K.ConditionalStatement:
            k = _equals_const(p.parent.predicate, name)
            if k is not None:
                return k
        p = p.parent
    return None


def _is_increment(rhs: Syntax, name: str) -> bool:
    if rhs.kind != K.AddExpression:
        return False
    one = [literal(unparen(x)) for x in (rhs.left, rhs.right)]
    return (
        (_is_name(rhs.left, name) and one[1] is not None and one[1][0] == 1)
        or (_is_name(rhs.right, name) and one[0] is not None and one[0][0] == 1))


def counter_limit(mod: Syntax, name: str) -> int | None:
    """K if ``name`` is a wrap-around counter in ``mod`` (see the module docstring), else None."""
    limit: int | None = None
    consts: list[int] = []
    found_increment = False
    for n in walk(mod):
        if n.kind in (K.IdentifierSelectName,) and n.identifier.valueText == name:
            return None  # a bit or part select: not a whole-value use
        if n.kind not in ASSIGN or not _is_name(n.left, name):
            if n.kind in (K.AddAssignmentExpression, K.SubtractAssignmentExpression) and _is_name(n.left, name):
                return None
            continue
        rhs = unparen(n.right)
        lit = literal(rhs)
        if lit is not None:
            consts.append(lit[0])
            continue
        if rhs.kind == K.ConditionalExpression:  # c <= (c == K) ? CONST : c + 1
            k = _equals_const(rhs.predicate, name)
            low = literal(unparen(rhs.left))
            if k is None or low is None or not _is_increment(unparen(rhs.right), name):
                return None
            consts.append(low[0])
        elif rhs.kind == K.AddExpression and _is_increment(rhs, name):
            k = _guard_limit(n, name)
        else:
            return None
        if k is None or (limit is not None and k != limit):
            return None
        limit, found_increment = k, True
    if not found_increment or not consts or limit is None or any(c < 0 or c > limit for c in consts):
        return None
    return limit


@dataclass(frozen=True)
class Counter:
    """An internal wrap-around counter: its declared range (the node), name, width and limit K."""

    dimension: Syntax
    name: str
    width: int
    limit: int


def counters(mod: Syntax) -> list[Counter]:
    """The internal (non-port) counters of a module."""
    ports = {d.name.valueText for n in walk(mod.header) for d in walk(n) if d.kind == K.Declarator}
    ports |= {n.identifier.valueText for n in walk(mod.header) if n.kind == K.IdentifierName}
    out = []
    for n in walk(mod):
        if n.kind != K.DataDeclaration:
            continue
        decls = nodes(n.declarators)
        if len(decls) != 1 or len(decls[0].dimensions) or decls[0].name.valueText in ports:
            continue
        ty = str(n.type).strip()
        dims = [x for x in walk(n.type) if x.kind == K.VariableDimension]
        if not ty.startswith("reg") or len(dims) != 1:
            continue
        rng = [x for x in walk(dims[0]) if x.kind == K.SimpleRangeSelect]
        if len(rng) != 1:
            continue
        hi, lo = literal(unparen(rng[0].left)), literal(unparen(rng[0].right))
        if hi is None or lo is None or lo[0] != 0:
            continue
        name = decls[0].name.valueText
        k = counter_limit(mod, name)
        if k is not None and _value_uses_only(mod, name):
            out.append(Counter(dims[0], name, hi[0] + 1, k))
    return out


class CounterWidth(RtlMove):
    """``reg [31:0] c`` counting 0..K -> ``reg [bitlen(K)-1:0] c``."""

    name = "counter_width"
    requires = "unsigned"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        out = []
        for mod in modules(tree):
            for c in counters(mod):
                need = max(1, c.limit.bit_length())
                if need < c.width:
                    out.append([replace(c.dimension, f"[{need - 1}:0]")])
        return out


class CounterDeadCompare(RtlMove):
    """``c == L`` with L beyond the counter's range -> ``1'b0`` (``!=`` -> ``1'b1``)."""

    name = "counter_dead_compare"
    requires = "unsigned"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        out = []
        for mod in modules(tree):
            names = {d.name.valueText for d in walk(mod) if d.kind == K.Declarator}
            limits = {nm: k for nm in names if (k := counter_limit(mod, nm)) is not None}
            for n in walk(mod):
                if n.kind not in (K.EqualityExpression, K.InequalityExpression):
                    continue
                for a, b in ((n.left, n.right), (n.right, n.left)):
                    name, lit = identifier(a), literal(unparen(b))
                    if name is not None and name in limits and lit is not None and lit[0] > limits[name]:
                        out.append([replace(n, "1'b0" if n.kind == K.EqualityExpression else "1'b1")])
                        break
        return out
