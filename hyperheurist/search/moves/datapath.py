"""Word-level datapath rewrites a designer makes by hand, as RTL moves on the pyslang syntax tree.

Each rule states the Verilog width condition that makes it exact; every rule is proven on small
widths by tests/test_rewrite_rules.py (Yosys SAT with undef modelling). All rules apply only to
unsigned arithmetic (a file with ``signed`` or a signed type such as ``integer`` is left alone): zero extension commutes with
every regrouping below, sign extension does not always. Width-dependent rules (decoder, comparison,
CSE) read declared widths from a pyslang elaboration and skip modules with overridable parameters
(a parameter override could change the widths they checked).

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
import re

from ..state import MoveContext
from .arith import in_logic
from .rtl import RtlMove
from .verilog import Edit, K, node_text, walk

SHAREABLE = {
    K.AddExpression: "+", K.SubtractExpression: "-", K.MultiplyExpression: "*",
    K.BinaryAndExpression: "&", K.BinaryOrExpression: "|", K.BinaryXorExpression: "^",
    K.LogicalShiftLeftExpression: "<<", K.LogicalShiftRightExpression: ">>",
    K.LessThanExpression: "<", K.LessThanEqualExpression: "<=", K.GreaterThanExpression: ">",
    K.GreaterThanEqualExpression: ">=", K.EqualityExpression: "==", K.InequalityExpression: "!=",
}


def unparen(node):
    while node.kind == K.ParenthesizedExpression:
        node = node.expression
    return node


def paren(t: str) -> str:
    t = t.strip()
    return t if t.replace("_", "a").isalnum() else f"({t})"


SIGNED_TYPES = re.compile(r"\b(signed|integer|int|shortint|longint|byte|real|shortreal)\b")


def unsigned_only(text: str) -> bool:
    """No signed declaration, cast or signed type anywhere (``integer`` loop variables included)."""
    return SIGNED_TYPES.search(text) is None


def _mux(cond: str, a: str, b: str) -> str:
    """``cond ? a : b``, or just ``a`` when both arms are the same text."""
    if a.strip() == b.strip():
        return paren(a)
    return f"({cond} ? {a.strip()} : {b.strip()})"


class ShareMuxOperator(RtlMove):
    """``c ? (a OP b) : (d OP e)`` -> ``(c ? a : d) OP (c ? b : e)``."""

    name = "share_mux_operator"

    def sites(self, text: str, tree, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        if not unsigned_only(text):
            return []
        out = []
        for n in walk(tree.root):
            if n.kind != K.ConditionalExpression or not in_logic(n):
                continue
            t, f = unparen(n.left), unparen(n.right)
            if t.kind != f.kind or t.kind not in SHAREABLE:
                continue
            cond = node_text(n.predicate, text)
            parts = [node_text(x, text) for x in (t.left, f.left, t.right, f.right)]
            if cond is None or any(p is None for p in parts):
                continue
            tl, fl, tr, fr = parts
            if tl.strip() == fl.strip() and tr.strip() == fr.strip():
                continue  # the same operation in both arms: nothing to share (opt handles it)
            cond = paren(cond)
            repl = f"({_mux(cond, tl, fl)} {SHAREABLE[t.kind]} {_mux(cond, tr, fr)})"
            r = n.sourceRange
            out.append([Edit(r.start.offset, r.end.offset, repl)])
        return out


class ShareAddSub(RtlMove):
    """``c ? (a - b) : (a + b)`` (either order) -> one adder with b inverted and a carry-in."""

    name = "share_add_sub"

    def sites(self, text: str, tree, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        if not unsigned_only(text):
            return []
        out = []
        for n in walk(tree.root):
            if n.kind != K.ConditionalExpression or not in_logic(n):
                continue
            t, f = unparen(n.left), unparen(n.right)
            kinds = {t.kind, f.kind}
            if kinds != {K.AddExpression, K.SubtractExpression}:
                continue
            sub_when_true = t.kind == K.SubtractExpression
            sub, add = (t, f) if sub_when_true else (f, t)
            cond = node_text(n.predicate, text)
            sa, sb = node_text(sub.left, text), node_text(sub.right, text)
            aa, ab = node_text(add.left, text), node_text(add.right, text)
            if None in (cond, sa, sb, aa, ab):
                continue
            if (aa.strip(), ab.strip()) == (sa.strip(), sb.strip()):
                pass
            elif (ab.strip(), aa.strip()) == (sa.strip(), sb.strip()):
                pass  # b + a: addition commutes
            else:
                continue
            cond, a, b = paren(cond), paren(sa), paren(sb)
            inv = f"({cond} ? ~{b} : {b})" if sub_when_true else f"({cond} ? {b} : ~{b})"
            carry = f"({cond} ? 1'b1 : 1'b0)" if sub_when_true else f"({cond} ? 1'b0 : 1'b1)"
            r = n.sourceRange
            out.append([Edit(r.start.offset, r.end.offset, f"({a} + {inv} + {carry})")])
        return out


class FactorCommon(RtlMove):
    """``a*b + a*c`` -> ``a * (b + c)`` and ``a*b - a*c`` -> ``a * (b - c)``, the common factor
    found in any operand position."""

    name = "factor_common"

    def sites(self, text: str, tree, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        if not unsigned_only(text):
            return []
        out = []
        for n in walk(tree.root):
            if n.kind not in (K.AddExpression, K.SubtractExpression) or not in_logic(n):
                continue
            l, r = unparen(n.left), unparen(n.right)
            if l.kind != K.MultiplyExpression or r.kind != K.MultiplyExpression:
                continue
            lt = [node_text(x, text) for x in (l.left, l.right)]
            rt = [node_text(x, text) for x in (r.left, r.right)]
            if any(x is None for x in lt + rt):
                continue
            found = None
            for i in (0, 1):
                for j in (0, 1):
                    if found is None and lt[i].strip() == rt[j].strip():
                        found = (lt[i], lt[1 - i], rt[1 - j])
            if found is None:
                continue
            common, x, y = found
            op = "+" if n.kind == K.AddExpression else "-"
            rng_ = n.sourceRange
            out.append([Edit(rng_.start.offset, rng_.end.offset, f"({paren(common)} * ({x.strip()} {op} {y.strip()}))")])
        return out
