"""narrow_accumulator: an internal variable used only as a sum, narrowed to the widest place it is read.

Applies to a non-port ``integer`` or ``reg [H:0]`` variable v whose every reference sits in a sum
(``+``/``-`` through parentheses) that is the whole right-hand side of an assignment, with simple
leaves only (names, bit selects, literals), or is the assignment's target. The low W bits of a sum
depend only on the low W bits of its operands, whatever their signedness and the context width, and
v's value leaves the sums only by assignment to targets of at most W bits (truncation). So v may be
a W-bit unsigned reg, W the widest such target. The typical case is a loop counter written as
``integer cnt; for (...) cnt = cnt + x[i]; n = cnt;``: 32-bit adders become W-bit ones.
"""

from __future__ import annotations

import random
import re

from ..state import MoveContext
from .expr import Syntax, Widths, identifier, literal, replace, unparen
from .rtl import RtlMove
from .verilog import Edit, K, modules, node_text, nodes, walk

ASSIGN = (K.AssignmentExpression, K.NonblockingAssignmentExpression)
SUM = (K.AddExpression, K.SubtractExpression, K.ParenthesizedExpression)
LEAVES = (K.IdentifierName, K.IdentifierSelectName, K.ElementSelectExpression)
DECL = re.compile(r"^(integer|reg\s*\[\s*(\d+)\s*:\s*0\s*\])$")


def _simple_sum(node: Syntax) -> bool:
    node = unparen(node)
    if node.kind in (K.AddExpression, K.SubtractExpression):
        return _simple_sum(node.left) and _simple_sum(node.right)
    return node.kind in LEAVES or literal(node) is not None


def _sinks(mod: Syntax, name: str) -> list[str] | None:
    """Targets (other than ``name``) that read the variable, or None when a use is not a plain sum."""
    sinks: list[str] = []
    for n in walk(mod):
        if n.kind == K.IdentifierSelectName and n.identifier.valueText == name:
            return None
        if n.kind != K.IdentifierName or n.identifier.valueText != name:
            continue
        child, p = n, n.parent
        while p is not None and p.kind in SUM:
            child, p = p, p.parent
        if p is None or p.kind not in ASSIGN:
            return None
        if not _simple_sum(p.right):
            return None
        target = identifier(p.left)
        if target is None:
            return None
        if child.sourceRange.start.offset == p.left.sourceRange.start.offset:
            continue  # the write itself
        if target != name:
            sinks.append(target)
    return sinks


class NarrowAccumulator(RtlMove):
    """``integer cnt`` summing bits into a 5-bit output -> ``reg [4:0] cnt``."""

    name = "narrow_accumulator"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        out = []
        w = Widths(tree)
        for mod in modules(tree):
            ports = {d.name.valueText for d in walk(mod.header) if d.kind == K.Declarator}
            ports |= {n.identifier.valueText for n in walk(mod.header) if n.kind == K.IdentifierName}
            for decl in walk(mod):
                if decl.kind != K.DataDeclaration:
                    continue
                ty = (node_text(decl.type, text) or "").strip()
                m = DECL.match(ty)
                declarators = nodes(decl.declarators)
                if m is None or any(d.initializer is not None or len(d.dimensions) for d in declarators):
                    continue
                for d in declarators:
                    name = d.name.valueText
                    sinks = _sinks(mod, name) if name not in ports else None
                    if not sinks:
                        continue
                    current = w.get().get(name)  # the one width reader (hdl.ports), as for the sinks
                    if current is None or any(s not in w.get() for s in sinks):
                        continue
                    need = max(w.get()[s] for s in sinks)
                    if need >= current:
                        continue
                    others = [x.name.valueText for x in declarators if x.name.valueText != name]
                    at = decl.sourceRange.start.offset
                    line_start = text.rfind("\n", 0, at) + 1
                    indent = text[line_start:at] if not text[line_start:at].strip() else "  "
                    keep = f"{ty} {', '.join(others)};\n{indent}" if others else ""
                    out.append([replace(decl, f"{keep}reg [{need - 1}:0] {name};")])
        return out


def _bit(node: Syntax) -> bool:
    """A single-bit select ``x[i]`` (one element select, a bit index, not a range)."""
    node = unparen(node)
    sels = list(node.selectors) if node.kind == K.IdentifierSelectName else []
    return len(sels) == 1 and sels[0].selector is not None and sels[0].selector.kind == K.BitSelect


class CondIncrementToAdd(RtlMove):
    """``if (x[i]) v = v + 1;`` -> ``v = v + x[i];``: an adder of the bit instead of an adder and a mux."""

    name = "cond_increment_to_add"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        out = []
        for n in walk(tree.root):
            if n.kind != K.ConditionalStatement or n.elseClause is not None:
                continue
            conds = nodes(n.predicate.conditions)
            st = n.statement
            if len(conds) != 1 or not _bit(conds[0].expr) or st.kind != K.ExpressionStatement:
                continue
            a = st.expr
            v = identifier(a.left) if a.kind in ASSIGN else None
            if v is None or unparen(a.right).kind != K.AddExpression:
                continue
            rhs = unparen(a.right)
            ones = [literal(unparen(x)) for x in (rhs.left, rhs.right)]
            names = [identifier(x) == v for x in (rhs.left, rhs.right)]
            if not ((names[0] and ones[1] and ones[1][0] == 1) or (names[1] and ones[0] and ones[0][0] == 1)):
                continue
            bit, lhs = node_text(conds[0].expr, text), node_text(a.left, text)
            op = "<=" if a.kind == K.NonblockingAssignmentExpression else "="
            if bit is None or lhs is None:
                continue
            out.append([replace(n, f"{lhs.strip()} {op} {v} + {bit.strip()};")])
        return out
