"""Word-level rewrites that need declared widths (from a pyslang elaboration) or a whole assignment.

Same rules as ``datapath.py``: unsigned modules only, no overridable parameters for the
width-dependent ones, each rule proven on small widths by tests/test_rewrite_rules.py.

- decoder_compare: ``y = 1 << s`` -> ``y = {(s == W-1), ..., (s == 0)}`` for a W-bit ``y``: bit i of
  a one-hot shift is exactly ``s == i`` (a shift by W or more gives 0, as every comparison does).
  A bank of comparisons shares the decoding of ``s``; a shifter of a constant does not.
- fold_constants: the whole right-hand side of an assignment that is a sum/difference of terms with
  two or more constants, or a constant that is not last, -> the terms followed by one folded
  constant. Only the low W bits of a sum matter for a W-bit target, and those do not depend on the
  grouping or on a wider context, so the folded constant may be sized as needed.
- cancel_compare: ``(x + k) REL (y + k)`` -> ``x REL y`` when neither sum can overflow the
  comparison's width (max(x) + max(k) < 2^W): then the offset cancels.
- share_partial_sum: two continuous assigns whose right-hand sides are sums of three or more
  simple names sharing two of them -> one wire holding that partial sum, used by both. The wire is
  as wide as the wider target, so each target's low bits are unchanged.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..state import MoveContext
from .expr import (
    Syntax,
    Widths,
    assignment_of,
    identifier,
    literal,
    logic_nodes,
    paren,
    replace,
    unparen,
)
from .rtl import RtlMove, line_span
from .verilog import Edit, K, node_text, walk

SIMPLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
RELATIONS = {K.LessThanExpression, K.LessThanEqualExpression, K.GreaterThanExpression,
             K.GreaterThanEqualExpression, K.EqualityExpression, K.InequalityExpression}


class DecoderCompare(RtlMove):
    """``y = 1 << s`` -> a bank of equality comparisons."""

    name = "decoder_compare"
    requires = "fixed-widths"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        w = Widths(tree)
        out = []
        for n in logic_nodes(tree.root, {K.LogicalShiftLeftExpression}):
            lit = literal(unparen(n.left))
            a = assignment_of(n)
            target = identifier(a.left) if a is not None else None
            if lit is None or lit[0] != 1 or target is None:
                continue
            width = w.get().get(target)
            s = node_text(n.right, text)
            if width is None or s is None or width > 256:
                continue
            s = paren(s)
            bank = ", ".join(f"({s} == {i})" for i in range(width - 1, -1, -1))
            out.append([replace(n, "{" + bank + "}")])
        return out


def _terms(node: Syntax, sign: int = 1) -> Iterator[tuple[int, Syntax]]:
    """The signed leaves of a +/- tree (through parentheses)."""
    node = unparen(node)
    if node.kind == K.AddExpression:
        yield from _terms(node.left, sign)
        yield from _terms(node.right, sign)
    elif node.kind == K.SubtractExpression:
        yield from _terms(node.left, sign)
        yield from _terms(node.right, -sign)
    else:
        yield sign, node


class FoldConstants(RtlMove):
    """``(a + 3) + (b + 5) + (c - 8)`` -> ``a + b + c``; any constants gathered into one, last."""

    name = "fold_constants"
    requires = "unsigned"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        out = []
        for n in logic_nodes(tree.root, {K.AddExpression, K.SubtractExpression}):
            if assignment_of(n) is None:
                continue
            terms = list(_terms(n))
            consts = [(sg, literal(t)) for sg, t in terms]
            lits = [(sg, lit) for sg, lit in consts if lit is not None]
            others = [(sg, t) for (sg, t), (_, lit) in zip(terms, consts, strict=True) if lit is None]
            if not others or not lits or others[0][0] < 0:
                continue
            if len(lits) == 1 and (consts[-1][1] is not None or lits[0][1][0] == 0):
                continue  # one constant, already last, or a lone zero that sizes the sum: nothing to fold
            maybe = [node_text(t, text) for _, t in others]
            texts = [t for t in maybe if t is not None]
            if len(texts) != len(maybe):
                continue
            total = sum(sg * lit[0] for sg, lit in lits)
            size = max(int(lit[1].split("'")[0] or 32) for _, lit in lits)
            size = max(size, abs(total).bit_length())
            expr = " ".join([paren(texts[0])] + [f"{'+' if sg > 0 else '-'} {paren(t)}"
                                                 for (sg, _), t in zip(others[1:], texts[1:], strict=True)])
            if total:
                expr += f" {'+' if total > 0 else '-'} {size}'d{abs(total)}"
            out.append([replace(n, f"({expr})")])
        return out


def _max_value(node: Syntax, w: dict[str, int]) -> tuple[int, int] | None:
    """(largest value, width) of a simple name or an unsigned literal."""
    node = unparen(node)
    lit = literal(node)
    if lit is not None:
        size = lit[1].split("'")[0]
        return lit[0], int(size) if size else 32
    name = identifier(node)
    if name is not None and name in w:
        return (1 << w[name]) - 1, w[name]
    return None


class CancelCompare(RtlMove):
    """``(x + k) REL (y + k)`` -> ``x REL y`` when neither sum overflows."""

    name = "cancel_compare"
    requires = "fixed-widths"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        w = Widths(tree)
        out = []
        for n in logic_nodes(tree.root, RELATIONS):
            left, right = unparen(n.left), unparen(n.right)
            if left.kind != K.AddExpression or right.kind != K.AddExpression:
                continue
            lt = [(x, (node_text(x, text) or "").strip()) for x in (left.left, left.right)]
            rt = [(x, (node_text(x, text) or "").strip()) for x in (right.left, right.right)]
            if any(not t for _, t in lt + rt):
                continue
            pick = next(((i, j) for i in (0, 1) for j in (0, 1) if lt[i][1] == rt[j][1]), None)
            if pick is None:
                continue
            k, x, y = lt[pick[0]], lt[1 - pick[0]], rt[1 - pick[1]]
            mk, mx, my = (_max_value(v, w.get()) for v, _ in (k, x, y))
            if mk is None or mx is None or my is None:
                continue
            (kv, kw), (xv, xw), (yv, yw) = mk, mx, my
            width = max(kw, xw, yw)
            if xv + kv >= 1 << width or yv + kv >= 1 << width:
                continue  # a sum can wrap: the offset does not cancel
            at = n.operatorToken.location.offset
            op = text[at:at + len(n.operatorToken.rawText)]
            out.append([replace(n, f"({paren(x[1])} {op} {paren(y[1])})")])
        return out


@dataclass(frozen=True)
class NameSum:
    """``assign target = a + b + c ...`` with three or more plain names added."""

    statement: Syntax  # the continuous assign
    assignment: Syntax
    target: str
    names: list[str]


def _name_sums(tree: Syntax, text: str) -> list[NameSum]:
    sums = []
    for n in walk(tree.root):
        if n.kind != K.ContinuousAssign:
            continue
        for a in n.assignments:
            if not hasattr(a, "kind") or a.kind != K.AssignmentExpression:
                continue
            target = identifier(a.left)
            if unparen(a.right).kind != K.AddExpression or target is None:
                continue
            terms = list(_terms(a.right))
            names = [(node_text(t, text) or "").strip() for _, t in terms]
            if len(terms) >= 3 and all(sg > 0 for sg, _ in terms) and all(SIMPLE.match(t) for t in names):
                sums.append(NameSum(n, a, target, names))
    return sums


class SharePartialSum(RtlMove):
    """Two sums of names sharing a pair of names -> one wire for the pair, used by both."""

    name = "share_partial_sum"
    requires = "fixed-widths"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        sums = _name_sums(tree, text)
        w = Widths(tree)
        out = []
        for i, si in enumerate(sums):
            for sj in sums[i + 1:]:
                if si.statement.sourceRange.start.offset == sj.statement.sourceRange.start.offset:
                    continue
                common = [x for x in dict.fromkeys(si.names) if x in sj.names]
                if len(common) < 2 or si.target not in w.get() or sj.target not in w.get():
                    continue
                p, q = common[0], common[1]
                wire = f"hh_sum_{p}_{q}"
                if re.search(rf"\b{wire}\b", text):
                    continue
                width = max(w.get()[si.target], w.get()[sj.target])
                edits = []
                for s in (si, sj):
                    rest = list(s.names)
                    rest.remove(p)
                    rest.remove(q)
                    edits.append(replace(s.assignment.right, " + ".join([wire, *rest])))
                first = min(si.statement, sj.statement, key=lambda x: x.sourceRange.start.offset)
                start, _ = line_span(text, first.sourceRange.start.offset, first.sourceRange.end.offset)
                indent = text[start:first.sourceRange.start.offset]
                edits.append(Edit(start, start, f"{indent}wire [{width - 1}:0] {wire} = {p} + {q};\n"))
                out.append(edits)
        return out
