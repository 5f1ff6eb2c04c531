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

from pyslang.syntax import SyntaxKind

from ..state import MoveContext
from .expr import Syntax, literal, logic_nodes, replace, unparen
from .rtl import RtlMove
from .verilog import Edit, K, node_text

MAX_CSD_DIGITS = 6  # more nonzero digits than this and a multiplier is the better structure
CHAIN_KINDS = {
    K.AddExpression: "+", K.MultiplyExpression: "*", K.BinaryAndExpression: "&",
    K.BinaryOrExpression: "|", K.BinaryXorExpression: "^",
}
SIMPLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")


def csd(value: int) -> list[tuple[int, int]]:
    """Canonical signed digits (non-adjacent form): [(shift, +1 or -1)], lowest shift first."""
    out: list[tuple[int, int]] = []
    k = 0
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

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        out = []
        for n in logic_nodes(tree.root, {K.MultiplyExpression}):
            for const, other in ((n.right, n.left), (n.left, n.right)):
                lit = literal(const)
                if lit is None or literal(other) is not None:
                    continue
                operand = node_text(other, text)
                repl = shift_add(operand.strip(), lit[0], lit[1]) if operand else None
                if repl is not None and node_text(n, text) is not None:
                    out.append([replace(n, repl)])
                break
        return out


def chain_operands(node: Syntax, kind: SyntaxKind) -> tuple[list[Syntax], int]:
    """The leaves of a same-operator chain (through parentheses) and its current depth."""
    node = unparen(node)
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

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        out = []
        for n in logic_nodes(tree.root, set(CHAIN_KINDS)):
            p = n.parent
            while p is not None and p.kind == K.ParenthesizedExpression:
                p = p.parent
            if p is not None and p.kind == n.kind:
                continue  # not the root of its chain
            leaves, depth = chain_operands(n, n.kind)
            if len(leaves) < 4 or depth <= math.ceil(math.log2(len(leaves))):
                continue
            maybe = [node_text(x, text) for x in leaves]
            texts = [t.strip() for t in maybe if t is not None]
            if len(texts) != len(maybe):
                continue
            parts = [t if SIMPLE.match(t) else f"({t})" for t in texts]
            out.append([replace(n, balanced(parts, CHAIN_KINDS[n.kind]))])
        return out
