"""Expression helpers the RTL moves share: parentheses, literals, where an expression sits, widths.

Syntax nodes are typed ``Syntax``: pyslang's stubs type ``.kind`` but cannot say which attributes a
node of a given kind has (``.left`` of a binary expression, ``.predicate`` of a conditional), and the
moves narrow a node by its kind, so a node is ``Any`` once its kind has been checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pyslang.syntax import SyntaxKind

from ...hdl.ports import top_widths
from .verilog import Edit, K, modules, overridable_declarations, walk

Syntax = Any  # a pyslang syntax node, narrowed by its ``.kind`` (see the module docstring)

CONTEXTS = {K.ContinuousAssign, K.AlwaysBlock, K.AlwaysCombBlock, K.AlwaysFFBlock, K.AlwaysLatchBlock}
CONSTANT_CONTEXTS = {K.ParameterDeclaration, K.VariableDimension, K.TypeParameterDeclaration}
SIGNED_TYPES = re.compile(r"\b(signed|integer|int|shortint|longint|byte|real|shortreal)\b")


def unparen(node: Syntax) -> Syntax:
    while node.kind == K.ParenthesizedExpression:
        node = node.expression
    return node


def paren(t: str) -> str:
    t = t.strip()
    return t if t.replace("_", "a").isalnum() else f"({t})"


def unsigned_only(text: str) -> bool:
    """No signed declaration, cast or signed type anywhere (``integer`` loop variables included)."""
    return SIGNED_TYPES.search(text) is None


def in_logic(node: Syntax) -> bool:
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


def logic_nodes(root: Syntax, kinds: set[SyntaxKind]) -> Iterator[Syntax]:
    """The nodes of one of ``kinds`` below ``root`` that sit in logic (``in_logic``)."""
    return (n for n in walk(root) if n.kind in kinds and in_logic(n))


def replace(node: Syntax, text: str) -> Edit:
    """An edit replacing the whole source range of ``node`` with ``text``."""
    r = node.sourceRange
    return Edit(r.start.offset, r.end.offset, text)


def literal(node: Syntax) -> tuple[int, str] | None:
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


def assignment_of(node: Syntax) -> Syntax | None:
    """The assignment whose whole right-hand side ``node`` is (through parentheses), else None."""
    p = node.parent
    while p is not None and p.kind == K.ParenthesizedExpression:
        p = p.parent
    if p is None or p.kind not in (K.AssignmentExpression, K.NonblockingAssignmentExpression):
        return None
    same = unparen(p.right).sourceRange.start.offset == unparen(node).sourceRange.start.offset
    return p if same else None


def identifier(node: Syntax) -> str | None:
    """The name of a plain identifier (through parentheses), else None."""
    node = unparen(node)
    return str(node.identifier.valueText) if node.kind == K.IdentifierName else None


def fixed_parameters(tree: Syntax) -> bool:
    """No parameter (value or type) a caller could override: widths are the declared ones, whatever the
    signedness. RtlMove gives a move that needs this a parameterised file specialised (``specialise``)."""
    return not any(overridable_declarations(m) for m in modules(tree))


def fixed_widths(text: str, tree: Syntax) -> bool:
    """Unsigned, and widths are the declared ones (``fixed_parameters``)."""
    return unsigned_only(text) and fixed_parameters(tree)


class Widths:
    """Bit widths of the ports, nets and variables of a file's top modules (names unique per file
    here), elaborated on first use: most files have no site that needs them."""

    def __init__(self, tree: Syntax) -> None:
        self.tree = tree
        self._widths: dict[str, int] | None = None

    def get(self) -> dict[str, int]:
        if self._widths is None:  # one bounded elaboration (hdl.ports), not an unbounded Compilation
            self._widths = top_widths([self.tree])
        return self._widths
