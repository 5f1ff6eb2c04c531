"""Arithmetic RTL moves: constant multiplication to shift-add (CSD), balancing operator chains.

Verilog width rules make both exact: ``+``, ``*``, ``&``, ``|``, ``^`` and the left operand of
``<<`` are context-determined, so every operand is extended to the expression's final width before
evaluation, and the results agree modulo 2^width. ``x * C`` is rewritten as
``(Z + (x << a) - (x << b) ...)`` where ``Z`` is a zero with the constant's own size and signedness:
the sum then has exactly the width and signedness the product had, in any context.
"""

from __future__ import annotations

import math
import random
import re

from ..state import MoveContext
from .rtl import RtlMove
from .verilog import Edit, K, node_text, walk

MAX_CSD_DIGITS = 6  # more nonzero digits than this and a multiplier is the better structure
CHAIN_KINDS = {
    K.AddExpression: "+", K.MultiplyExpression: "*", K.BinaryAndExpression: "&",
    K.BinaryOrExpression: "|", K.BinaryXorExpression: "^",
}
CONTEXTS = {K.ContinuousAssign, K.AlwaysBlock, K.AlwaysCombBlock, K.AlwaysFFBlock, K.AlwaysLatchBlock}
CONSTANT_CONTEXTS = {K.ParameterDeclaration, K.VariableDimension, K.TypeParameterDeclaration}
SIMPLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")


def in_logic(node) -> bool:
    """Inside a continuous assign or an always block, and not in a constant expression."""
    p = node.parent
    found = False
    while p is not None:
        if p.kind in CONSTANT_CONTEXTS:
            return False
        if p.kind in CONTEXTS:
            found = True
        p = p.parent
    return found


def literal(node) -> tuple[int, str] | None:
    """(value, zero-of-the-same-type) for an integer literal without x/z digits."""
    if node.kind == K.IntegerLiteralExpression:
        digits = node.literal.valueText.replace("_", "")
        return (int(digits), "0") if digits.isdigit() else None
    if node.kind != K.IntegerVectorExpression:
        return None
    size_text = "" if node.size.isMissing else node.size.valueText.replace("_", "")
    base = node.base.valueText.lower()  # 'd, 'sd, 'h, 'b, 'o
    signed = "s" in base
    radix = {"d": 10, "h": 16, "b": 2, "o": 8}.get(base[-1])
    digits = node.value.valueText.replace("_", "")
    if radix is None or not digits or any(c in "xz?" for c in digits.lower()):
        return None
    try:
        value = int(digits, radix)
    except ValueError:
        return None
    width = int(size_text) if size_text.isdigit() else 32
    if width < 1 or width > 4096:
        return None
    value %= 1 << width
    if signed and value >> (width - 1):
        value -= 1 << width
    return value, f"{size_text}'{'s' if signed else ''}d0"


def csd(value: int) -> list[tuple[int, int]]:
    """Canonical signed digits (non-adjacent form): [(shift, +1 or -1)], lowest shift first."""
    out, k = [], 0
    while value != 0:
        if value & 1:
            d = 2 - (value & 3)
            out.append((k, d))
            value -= d
        value >>= 1
        k += 1
    return out


def shift_add(operand: str, value: int, zero: str) -> str | None:
    digits = csd(value)
    if len(digits) > MAX_CSD_DIGITS or (len(digits) < 2 and value > 0):
        return None  # too dense for shift-add, or a plain power of two (already a shift)
    x = operand if SIMPLE.match(operand) else f"({operand})"
    terms = [f" {'+' if d > 0 else '-'} {x if k == 0 else f'({x} << {k})'}" for k, d in reversed(digits)]
    return f"({zero}{''.join(terms)})"


class ConstMultShiftAdd(RtlMove):
    """``x * CONST`` -> a sum of shifts of x (canonical signed digit recoding)."""

    name = "const_mult_shift_add"

    def sites(self, text: str, tree, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        out = []
        for n in walk(tree.root):
            if n.kind != K.MultiplyExpression or not in_logic(n):
                continue
            for const, other in ((n.right, n.left), (n.left, n.right)):
                lit = literal(const)
                if lit is None or literal(other) is not None:
                    continue
                operand, span_n = node_text(other, text), node_text(n, text)
                repl = shift_add(operand.strip(), lit[0], lit[1]) if operand else None
                r = n.sourceRange
                if repl is not None and span_n is not None:
                    out.append([Edit(r.start.offset, r.end.offset, repl)])
                break
        return out


def _unparen(node):
    while node.kind == K.ParenthesizedExpression:
        node = node.expression
    return node


def chain_operands(node, kind) -> tuple[list, int]:
    """The leaves of a same-operator chain (through parentheses) and its current depth."""
    node = _unparen(node)
    if node.kind != kind:
        return [node], 0
    left, dl = chain_operands(node.left, kind)
    right, dr = chain_operands(node.right, kind)
    return left + right, 1 + max(dl, dr)


def balanced(leaves: list[str], op: str) -> str:
    if len(leaves) == 1:
        return leaves[0]
    mid = (len(leaves) + 1) // 2
    return f"({balanced(leaves[:mid], op)} {op} {balanced(leaves[mid:], op)})"


class BalanceChain(RtlMove):
    """``a + b + c + d`` -> ``((a + b) + (c + d))``; the same for ``*``, ``&``, ``|``, ``^`` chains."""

    name = "balance_chain"

    def sites(self, text: str, tree, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        out = []
        for n in walk(tree.root):
            if n.kind not in CHAIN_KINDS or not in_logic(n):
                continue
            p = n.parent
            while p is not None and p.kind == K.ParenthesizedExpression:
                p = p.parent
            if p is not None and p.kind == n.kind:
                continue  # not the root of its chain
            leaves, depth = chain_operands(n, n.kind)
            if len(leaves) < 4 or depth <= math.ceil(math.log2(len(leaves))):
                continue
            texts = [node_text(x, text) for x in leaves]
            if any(t is None for t in texts):
                continue
            parts = [t.strip() if SIMPLE.match(t.strip()) else f"({t.strip()})" for t in texts]
            r = n.sourceRange
            out.append([Edit(r.start.offset, r.end.offset, balanced(parts, CHAIN_KINDS[n.kind]))])
        return out
