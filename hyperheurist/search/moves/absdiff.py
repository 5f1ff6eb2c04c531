"""shared_abs_diff: ``y = (a > b) ? a - b : b - a`` -> one subtractor whose borrow is the comparison.

``wire [W:0] d = a - b`` (W = the wider operand): zero-extended to W+1 bits, d's top bit is 1 exactly
when a < b, and then d's low W bits are 2^W - (b - a), whose negation modulo 2^W is b - a; otherwise
they are a - b. So ``y = d[W] ? -d[W-1:0] : d[W-1:0]`` is exact modulo 2^W, i.e. for a target of at
most W bits (required). Forms: ``>``/``>=`` with ``a - b`` first, ``<``/``<=`` with ``b - a`` first.
A comparator and two subtractors become one subtractor and a negation.
"""

from __future__ import annotations

import random
import re

from ..state import MoveContext
from .datapath import unparen
from .rtl import RtlMove, line_span
from .verilog import Edit, K, walk
from .wordlevel import assignment_of, fixed_widths, widths

GREATER = {K.GreaterThanExpression, K.GreaterThanEqualExpression}
LESS = {K.LessThanExpression, K.LessThanEqualExpression}


def _name(node) -> str | None:
    node = unparen(node)
    return node.identifier.valueText if node.kind == K.IdentifierName else None


class SharedAbsDiff(RtlMove):
    """``(a > b) ? a - b : b - a`` -> a shared (W+1)-bit difference."""

    name = "shared_abs_diff"

    def sites(self, text: str, tree, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        if not fixed_widths(text, tree):
            return []
        out = []
        w = None
        for n in walk(tree.root):
            if n.kind != K.ConditionalExpression:
                continue
            a_ = assignment_of(n)
            if a_ is None or a_.kind != K.AssignmentExpression or a_.parent is None or \
                    a_.parent.kind != K.ContinuousAssign or _name(a_.left) is None:
                continue
            cond = unparen(n.predicate.conditions[0].expr) if len(n.predicate.conditions) == 1 else None
            t, f = unparen(n.left), unparen(n.right)
            if cond is None or cond.kind not in GREATER | LESS or t.kind != K.SubtractExpression \
                    or f.kind != K.SubtractExpression:
                continue
            x, y = _name(cond.left), _name(cond.right)
            if cond.kind in LESS:
                x, y = y, x  # a < b ? b - a : a - b  is  b > a ? b - a : a - b
            if None in (x, y) or (_name(t.left), _name(t.right), _name(f.left), _name(f.right)) != (x, y, y, x):
                continue
            w = widths(tree) if w is None else w
            target = _name(a_.left)
            if x not in w or y not in w or target not in w:
                continue
            width = max(w[x], w[y])
            wire = f"hh_diff_{x}_{y}"
            if w[target] > width or re.search(rf"\b{wire}\b", text):
                continue
            stmt = a_.parent
            s, _ = line_span(text, stmt.sourceRange.start.offset, stmt.sourceRange.end.offset)
            indent = text[s:stmt.sourceRange.start.offset]
            r = n.sourceRange
            low = f"{wire}[{width - 1}:0]"
            out.append([Edit(s, s, f"{indent}wire [{width}:0] {wire} = {x} - {y};\n"),
                        Edit(r.start.offset, r.end.offset, f"({wire}[{width}] ? -{low} : {low})")])
        return out
