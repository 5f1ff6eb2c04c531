"""Word-level datapath rewrites a designer makes by hand, as RTL moves on the pyslang syntax tree.

Each rule states the Verilog width condition that makes it exact; every rule is proven on small
widths by tests/test_rewrite_rules.py (Yosys SAT with undef modelling). All rules apply only to
unsigned arithmetic (a file with ``signed`` or a signed type such as ``integer`` is left alone): zero
extension commutes with every regrouping below, sign extension does not always. Width-dependent rules
(decoder, comparison, CSE) read declared widths from a pyslang elaboration and skip modules with
overridable parameters (a parameter override could change the widths they checked).

- share_mux_operator: ``c ? (a OP b) : (d OP e)`` -> ``(c ? a : d) OP (c ? b : e)``; one operator
  behind two muxes. OP in + - * & | ^ << >> < <= > >= == !=. Arithmetic operands are context-
  determined, so both forms compute modulo the same width; comparison operands are zero-extended to
  a common width, which does not change an unsigned comparison; a shift amount is self-determined.
- share_add_sub: ``c ? (a - b) : (a + b)`` -> ``a + (c ? ~b : b) + (c ? 1'b1 : 1'b0)``: one adder
  (a - b = a + ~b + 1 modulo 2^W, with ~ taken after b is extended to the context width W).
- factor_common: ``a*b + a*c`` -> ``a * (b + c)`` (also ``-``, any operand order): distributivity
  holds modulo 2^W and ``b + c`` is evaluated at the context width W inside the product.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from pyslang.syntax import SyntaxKind

from ..state import MoveContext
from .expr import Syntax, logic_nodes, paren, replace, unparen
from .rtl import RtlMove
from .verilog import Edit, K, node_text

SHAREABLE = {
    K.AddExpression: "+", K.SubtractExpression: "-", K.MultiplyExpression: "*",
    K.BinaryAndExpression: "&", K.BinaryOrExpression: "|", K.BinaryXorExpression: "^",
    K.LogicalShiftLeftExpression: "<<", K.LogicalShiftRightExpression: ">>",
    K.LessThanExpression: "<", K.LessThanEqualExpression: "<=", K.GreaterThanExpression: ">",
    K.GreaterThanEqualExpression: ">=", K.EqualityExpression: "==", K.InequalityExpression: "!=",
}


@dataclass(frozen=True)
class Operands:
    """A binary expression's kind and the source text of its two operands."""

    kind: SyntaxKind
    left: str
    right: str


@dataclass(frozen=True)
class MuxOfOperators:
    """``cond ? (tl OP tr) : (fl OP fr)``, both arms binary expressions, as source text."""

    node: Syntax
    cond: str  # parenthesised where needed
    true: Operands
    false: Operands


def operands(node: Syntax, text: str) -> Operands | None:
    """The operands of a binary expression (through parentheses) as text; None when not exact."""
    node = unparen(node)
    if node.kind not in SHAREABLE:
        return None
    left, right = node_text(node.left, text), node_text(node.right, text)
    return None if left is None or right is None else Operands(node.kind, left.strip(), right.strip())


def muxes_of_operators(tree: Syntax, text: str) -> Iterator[MuxOfOperators]:
    """Every ``c ? (x OP y) : (z OP' w)`` in logic, with exact source text."""
    for n in logic_nodes(tree.root, {K.ConditionalExpression}):
        cond = node_text(n.predicate, text)
        t, f = operands(n.left, text), operands(n.right, text)
        if cond is not None and t is not None and f is not None:
            yield MuxOfOperators(n, paren(cond), t, f)


def _mux(cond: str, a: str, b: str) -> str:
    """``cond ? a : b``, or just ``a`` when both arms are the same text."""
    return paren(a) if a == b else f"({cond} ? {a} : {b})"


class ShareMuxOperator(RtlMove):
    """``c ? (a OP b) : (d OP e)`` -> ``(c ? a : d) OP (c ? b : e)``."""

    name = "share_mux_operator"
    requires = "unsigned"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        out = []
        for m in muxes_of_operators(tree, text):
            t, f = m.true, m.false
            if t.kind != f.kind or (t.left, t.right) == (f.left, f.right):
                continue  # different operators, or the same operation in both arms (opt handles it)
            repl = f"({_mux(m.cond, t.left, f.left)} {SHAREABLE[t.kind]} {_mux(m.cond, t.right, f.right)})"
            out.append([replace(m.node, repl)])
        return out


class ShareAddSub(RtlMove):
    """``c ? (a - b) : (a + b)`` (either order) -> one adder with b inverted and a carry-in."""

    name = "share_add_sub"
    requires = "unsigned"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        out = []
        for m in muxes_of_operators(tree, text):
            if {m.true.kind, m.false.kind} != {K.AddExpression, K.SubtractExpression}:
                continue
            sub_when_true = m.true.kind == K.SubtractExpression
            sub, add = (m.true, m.false) if sub_when_true else (m.false, m.true)
            if (sub.left, sub.right) not in ((add.left, add.right), (add.right, add.left)):
                continue  # b + a: addition commutes
            cond, a, b = m.cond, paren(sub.left), paren(sub.right)
            inv = f"({cond} ? ~{b} : {b})" if sub_when_true else f"({cond} ? {b} : ~{b})"
            carry = f"({cond} ? 1'b1 : 1'b0)" if sub_when_true else f"({cond} ? 1'b0 : 1'b1)"
            out.append([replace(m.node, f"({a} + {inv} + {carry})")])
        return out


class FactorCommon(RtlMove):
    """``a*b + a*c`` -> ``a * (b + c)`` and ``a*b - a*c`` -> ``a * (b - c)``, the common factor
    found in any operand position."""

    name = "factor_common"
    requires = "unsigned"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        out = []
        for n in logic_nodes(tree.root, {K.AddExpression, K.SubtractExpression}):
            lt, rt = operands(n.left, text), operands(n.right, text)
            if lt is None or rt is None or lt.kind != K.MultiplyExpression or rt.kind != K.MultiplyExpression:
                continue
            lx, rx = (lt.left, lt.right), (rt.left, rt.right)
            found = next(((lx[i], lx[1 - i], rx[1 - j]) for i in (0, 1) for j in (0, 1) if lx[i] == rx[j]), None)
            if found is None:
                continue
            common, x, y = found
            op = "+" if n.kind == K.AddExpression else "-"
            out.append([replace(n, f"({paren(common)} * ({x} {op} {y}))")])
        return out
