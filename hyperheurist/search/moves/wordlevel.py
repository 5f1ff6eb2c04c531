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

from pyslang import ast

from ..state import MoveContext
from .arith import in_logic, literal
from .datapath import paren, unparen, unsigned_only
from .rtl import RtlMove, line_span
from .verilog import Edit, K, modules, node_text, overridable_parameters, walk

SIMPLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
RELATIONS = {K.LessThanExpression, K.LessThanEqualExpression, K.GreaterThanExpression,
             K.GreaterThanEqualExpression, K.EqualityExpression, K.InequalityExpression}


def widths(tree) -> dict[str, int]:
    """Bit widths of the ports, nets and variables of the top modules (names unique per file here)."""
    comp = ast.Compilation()
    comp.addSyntaxTree(tree)
    out: dict[str, int] = {}
    for inst in comp.getRoot().topInstances:
        for m in inst.body:
            ty = getattr(m, "type", None)
            if ty is not None and m.kind in (ast.SymbolKind.Net, ast.SymbolKind.Variable, ast.SymbolKind.Port):
                out[m.name] = int(ty.bitWidth)
    return out


def fixed_widths(text: str, tree) -> bool:
    """Unsigned and without parameters a caller could override (widths are the declared ones)."""
    return unsigned_only(text) and not any(overridable_parameters(m, text) for m in modules(tree))


def assignment_of(node):
    """The assignment whose whole right-hand side ``node`` is (through parentheses), else None."""
    p = node.parent
    while p is not None and p.kind == K.ParenthesizedExpression:
        p = p.parent
    if p is None or p.kind not in (K.AssignmentExpression, K.NonblockingAssignmentExpression):
        return None
    same = unparen(p.right).sourceRange.start.offset == unparen(node).sourceRange.start.offset
    return p if same else None


class DecoderCompare(RtlMove):
    """``y = 1 << s`` -> a bank of equality comparisons."""

    name = "decoder_compare"

    def sites(self, text: str, tree, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        if not fixed_widths(text, tree):
            return []
        w = None
        out = []
        for n in walk(tree.root):
            if n.kind != K.LogicalShiftLeftExpression or not in_logic(n):
                continue
            lit = literal(unparen(n.left))
            a = assignment_of(n)
            if lit is None or lit[0] != 1 or a is None or unparen(a.left).kind != K.IdentifierName:
                continue
            w = widths(tree) if w is None else w
            width = w.get(unparen(a.left).identifier.valueText)
            s = node_text(n.right, text)
            if width is None or s is None or width > 256:
                continue
            s = paren(s)
            bank = ", ".join(f"({s} == {i})" for i in range(width - 1, -1, -1))
            r = n.sourceRange
            out.append([Edit(r.start.offset, r.end.offset, "{" + bank + "}")])
        return out


def _terms(node, sign: int = 1) -> Iterator[tuple[int, object]]:
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

    def sites(self, text: str, tree, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        if not unsigned_only(text):
            return []
        out = []
        for n in walk(tree.root):
            if n.kind not in (K.AddExpression, K.SubtractExpression) or not in_logic(n) or assignment_of(n) is None:
                continue
            terms = list(_terms(n))
            consts = [(sg, literal(t)) for sg, t in terms]
            lits = [(sg, lit) for sg, lit in consts if lit is not None]
            others = [(sg, t) for (sg, t), (_, lit) in zip(terms, consts) if lit is None]
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
                                                 for (sg, _), t in zip(others[1:], texts[1:])])
            if total:
                expr += f" {'+' if total > 0 else '-'} {size}'d{abs(total)}"
            r = n.sourceRange
            out.append([Edit(r.start.offset, r.end.offset, f"({expr})")])
        return out


def _max_value(node, w: dict[str, int]) -> tuple[int, int] | None:
    """(largest value, width) of a simple name or an unsigned literal."""
    node = unparen(node)
    lit = literal(node)
    if lit is not None:
        size = lit[1].split("'")[0]
        return lit[0], int(size) if size else 32
    if node.kind == K.IdentifierName and node.identifier.valueText in w:
        bits = w[node.identifier.valueText]
        return (1 << bits) - 1, bits
    return None


class CancelCompare(RtlMove):
    """``(x + k) REL (y + k)`` -> ``x REL y`` when neither sum overflows."""

    name = "cancel_compare"

    def sites(self, text: str, tree, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        if not fixed_widths(text, tree):
            return []
        w = None
        out = []
        for n in walk(tree.root):
            if n.kind not in RELATIONS or not in_logic(n):
                continue
            l, r = unparen(n.left), unparen(n.right)
            if l.kind != K.AddExpression or r.kind != K.AddExpression:
                continue
            w = widths(tree) if w is None else w
            lt = [(x, node_text(x, text) or "") for x in (l.left, l.right)]
            rt = [(x, node_text(x, text) or "") for x in (r.left, r.right)]
            if any(not t.strip() for _, t in lt + rt):
                continue
            pick = next(((i, j) for i in (0, 1) for j in (0, 1) if lt[i][1].strip() == rt[j][1].strip()), None)
            if pick is None:
                continue
            k, x, y = lt[pick[0]][0], lt[1 - pick[0]][0], rt[1 - pick[1]][0]
            mk, mx, my = (_max_value(v, w) for v in (k, x, y))
            if mk is None or mx is None or my is None:
                continue
            (kv, kw), (xv, xw), (yv, yw) = mk, mx, my
            width = max(kw, xw, yw)
            if xv + kv >= 1 << width or yv + kv >= 1 << width:
                continue  # a sum can wrap: the offset does not cancel
            op = text[n.operatorToken.location.offset:n.operatorToken.location.offset + len(n.operatorToken.rawText)]
            rg = n.sourceRange
            xs, ys = node_text(x, text), node_text(y, text)
            if xs is None or ys is None:
                continue
            out.append([Edit(rg.start.offset, rg.end.offset, f"({paren(xs)} {op} {paren(ys)})")])
        return out


class SharePartialSum(RtlMove):
    """Two sums of names sharing a pair of names -> one wire for the pair, used by both."""

    name = "share_partial_sum"

    def sites(self, text: str, tree, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        if not fixed_widths(text, tree):
            return []
        sums = []
        for n in walk(tree.root):
            if n.kind != K.ContinuousAssign:
                continue
            for a in n.assignments:
                if not hasattr(a, "kind") or a.kind != K.AssignmentExpression:
                    continue
                if unparen(a.right).kind != K.AddExpression or unparen(a.left).kind != K.IdentifierName:
                    continue
                terms = list(_terms(a.right))
                names = [(node_text(t, text) or "").strip() for _, t in terms]
                if len(terms) < 3 or any(sg < 0 for sg, _ in terms) or not all(SIMPLE.match(t) for t in names):
                    continue
                sums.append((n, a, names))
        out = []
        w = None
        for i in range(len(sums)):
            for j in range(i + 1, len(sums)):
                (ni, ai, xi), (nj, aj, xj) = sums[i], sums[j]
                if ni.sourceRange.start.offset == nj.sourceRange.start.offset:
                    continue
                common = [x for x in dict.fromkeys(xi) if x in xj]
                if len(common) < 2:
                    continue
                w = widths(tree) if w is None else w
                li, lj = unparen(ai.left).identifier.valueText, unparen(aj.left).identifier.valueText
                if li not in w or lj not in w:
                    continue
                p, q = common[0], common[1]
                wire = f"hh_sum_{p}_{q}"
                if re.search(rf"\b{wire}\b", text):
                    continue
                width = max(w[li], w[lj])
                edits = []
                for a, xs in ((ai, xi), (aj, xj)):
                    rest = list(xs)
                    rest.remove(p)
                    rest.remove(q)
                    r = a.right.sourceRange
                    edits.append(Edit(r.start.offset, r.end.offset, " + ".join([wire, *rest])))
                first = min(ni, nj, key=lambda x: x.sourceRange.start.offset)
                s, _ = line_span(text, first.sourceRange.start.offset, first.sourceRange.end.offset)
                indent = text[s:first.sourceRange.start.offset]
                edits.append(Edit(s, s, f"{indent}wire [{width - 1}:0] {wire} = {p} + {q};\n"))
                out.append(edits)
        return out
