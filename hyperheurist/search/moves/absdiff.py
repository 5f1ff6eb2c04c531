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
from .expr import Syntax, Widths, assignment_of, identifier, replace, unparen
from .rtl import RtlMove, line_span
from .verilog import Edit, K, walk

GREATER = {K.GreaterThanExpression, K.GreaterThanEqualExpression}
LESS = {K.LessThanExpression, K.LessThanEqualExpression}


class SharedAbsDiff(RtlMove):
    """``(a > b) ? a - b : b - a`` -> a shared (W+1)-bit difference."""

    name = "shared_abs_diff"
    requires = "fixed-widths"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        out = []
        w = Widths(tree)
        for n in walk(tree.root):
            if n.kind != K.ConditionalExpression:
                continue
            a_ = assignment_of(n)
            target = identifier(a_.left) if a_ is not None else None
            if a_ is None or a_.kind != K.AssignmentExpression or a_.parent is None or \
                    a_.parent.kind != K.ContinuousAssign or target is None:
                continue
            cond = unparen(n.predicate.conditions[0].expr) if len(n.predicate.conditions) == 1 else None
            t, f = unparen(n.left), unparen(n.right)
            if cond is None or cond.kind not in GREATER | LESS or t.kind != K.SubtractExpression \
                    or f.kind != K.SubtractExpression:
                continue
            x, y = identifier(cond.left), identifier(cond.right)
            if cond.kind in LESS:
                x, y = y, x  # a < b ? b - a : a - b  is  b > a ? b - a : a - b
            arms = (identifier(t.left), identifier(t.right), identifier(f.left), identifier(f.right))
            if x is None or y is None or arms != (x, y, y, x):
                continue
            widths = w.get()
            if x not in widths or y not in widths or target not in widths:
                continue
            width = max(widths[x], widths[y])
            wire = f"hh_diff_{x}_{y}"
            if widths[target] > width or re.search(rf"\b{wire}\b", text):
                continue
            stmt = a_.parent
            s, _ = line_span(text, stmt.sourceRange.start.offset, stmt.sourceRange.end.offset)
            indent = text[s:stmt.sourceRange.start.offset]
            low = f"{wire}[{width - 1}:0]"
            out.append([Edit(s, s, f"{indent}wire [{width}:0] {wire} = {x} - {y};\n"),
                        replace(n, f"({wire}[{width}] ? -{low} : {low})")])
        return out
