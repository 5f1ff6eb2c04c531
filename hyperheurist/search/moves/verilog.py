"""pyslang helpers for the RTL moves: parse, walk, exact source spans, text edits, re-parse checks.

LLM/user Verilog is untrusted: everything here is a pure function of the text (pyslang parses in
process; nothing is executed), and a rewrite is only returned when it parses back with no more
errors than the original.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from pyslang import ast, syntax

K = syntax.SyntaxKind
MAX_TEXT = 2_000_000  # characters; larger sources are left alone


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


def parse(text: str) -> syntax.SyntaxTree:
    return syntax.SyntaxTree.fromText(text)


def syntax_errors(tree: syntax.SyntaxTree) -> int:
    return sum(1 for d in tree.diagnostics if d.isError())


def semantic_errors(texts: list[str]) -> int:
    """Errors of a full elaboration of all sources together (undeclared names, bad widths, ...)."""
    comp = ast.Compilation()
    for t in texts:
        comp.addSyntaxTree(parse(t))
    return sum(1 for d in comp.getAllDiagnostics() if d.isError())


def nodes(seq) -> list:
    """The syntax nodes of a separated list (drops the comma tokens)."""
    return [x for x in seq if isinstance(x, syntax.SyntaxNode)]


def walk(node) -> Iterator:
    """Every syntax node below ``node`` (pre-order, tokens skipped)."""
    yield node
    for child in node:
        if isinstance(child, syntax.SyntaxNode):
            yield from walk(child)


def span(node, text: str) -> tuple[int, int] | None:
    """Offsets of ``node`` in ``text``, or None when it comes from a macro or include (no exact range)."""
    r = node.sourceRange
    s, e = r.start.offset, r.end.offset
    first = node.getFirstToken()
    if first is None or r.start.buffer != first.location.buffer or not (0 <= s <= e <= len(text)):
        return None
    if _code(text[s:e]) != _code(str(node)):
        return None  # the node's text is not literally there (macro expansion)
    return s, e


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _code(text: str) -> list[str]:
    """The words of ``text`` without comments: ``str(node)`` carries the comments before its first
    token (leading trivia), which are not inside its source range."""
    return _COMMENT.sub(" ", text).split()


def node_text(node, text: str) -> str | None:
    sp = span(node, text)
    return None if sp is None else text[sp[0]:sp[1]]


def apply_edits(text: str, edits: list[Edit]) -> str | None:
    """Apply non-overlapping edits; None when they overlap."""
    out, pos = [], 0
    for ed in sorted(edits, key=lambda e: (e.start, e.end)):
        if ed.start < pos:
            return None
        out.append(text[pos:ed.start])
        out.append(ed.text)
        pos = ed.end
    out.append(text[pos:])
    return "".join(out)


def clean_rewrite(old: str, new: str | None, others: list[str] = ()) -> bool:
    """The rewrite parses and elaborates with no more errors than the original."""
    if new is None or new == old:
        return False
    if syntax_errors(parse(new)) > syntax_errors(parse(old)):
        return False
    rest = list(others)
    return semantic_errors([new, *rest]) <= semantic_errors([old, *rest])


def modules(tree: syntax.SyntaxTree) -> list:
    return [n for n in walk(tree.root) if n.kind == K.ModuleDeclaration]


def module_name(mod) -> str:
    return mod.header.name.valueText


def identifiers(node) -> Iterator[str]:
    """Names referenced under ``node`` (simple identifiers)."""
    for n in walk(node):
        if n.kind in (K.IdentifierName, K.IdentifierSelectName):
            yield n.identifier.valueText


def parameter_declarators(mod) -> Iterator:
    """The declarators of a module's ``parameter`` (not localparam) declarations."""
    for n in walk(mod):
        if n.kind == K.ParameterDeclaration and n.keyword.kind.name == "ParameterKeyword":
            yield from nodes(n.declarators)


def overridable_parameters(mod, text: str) -> dict[str, str]:
    """``parameter`` (not localparam) names of a module and the text of their default values."""
    out: dict[str, str] = {}
    for d in parameter_declarators(mod):
        init = d.initializer
        value = node_text(init.expr, text) if init is not None else None
        out[d.name.valueText] = (value or "").strip()
    return out
