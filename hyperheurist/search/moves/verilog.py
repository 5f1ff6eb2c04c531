"""Source edits for the RTL moves on hdl.parse's trees: exact spans, text edits, re-parse checks.

LLM/user Verilog is untrusted: everything here is a pure function of the text (pyslang parses in
process; nothing is executed), and a rewrite is only returned when it parses back with no more
errors than the original.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ...hdl.parse import (
    MAX_TEXT,
    K,
    Syntax,
    module_name,
    modules,
    modules_named,
    nodes,
    parse,
    semantic_errors,
    syntax_errors,
    walk,
)

# the parse helpers the moves import from here (hdl.parse is their home)
__all__ = ["MAX_TEXT", "Edit", "K", "Syntax", "apply_edits", "clean_rewrite", "identifiers", "module_name", "modules",
           "modules_named", "node_text", "nodes", "overridable_declarations", "overridable_parameters",
           "parameter_declarators", "parse", "semantic_errors", "span", "syntax_errors", "walk"]


PARAMETER_DECLARATIONS = {K.ParameterDeclaration, K.TypeParameterDeclaration}


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


def span(node: Syntax, text: str) -> tuple[int, int] | None:
    """Offsets of ``node`` in ``text``, or None when it comes from a macro or include (no exact range)."""
    r = node.sourceRange
    s, e = r.start.offset, r.end.offset
    first = node.getFirstToken()
    if first is None or r.start.buffer != first.location.buffer or not (0 <= s <= e <= len(text)):
        return None
    if _code(text[s:e]) != _code(str(node)):
        return None  # the node's text is not literally there (macro expansion)
    return int(s), int(e)


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _code(text: str) -> list[str]:
    """The words of ``text`` without comments: ``str(node)`` carries the comments before its first
    token (leading trivia), which are not inside its source range."""
    return _COMMENT.sub(" ", text).split()


def node_text(node: Syntax, text: str) -> str | None:
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


def clean_rewrite(old: str, new: str | None, others: Sequence[str] = ()) -> bool:
    """The rewrite parses and elaborates with no more errors than the original."""
    if new is None or new == old:
        return False
    if syntax_errors(parse(new)) > syntax_errors(parse(old)):
        return False
    rest = list(others)
    return semantic_errors([new, *rest]) <= semantic_errors([old, *rest])


def identifiers(node: Syntax) -> Iterator[str]:
    """Names referenced under ``node`` (simple identifiers)."""
    for n in walk(node):
        if n.kind in (K.IdentifierName, K.IdentifierSelectName):
            yield n.identifier.valueText


def overridable_declarations(mod: Syntax) -> list[Syntax]:
    """The value and type parameter declarations of a module that a caller can override. In the parameter
    port list: a ``parameter`` one, and one without a keyword that follows it (it inherits the keyword; the
    first entry defaults to ``parameter``). In the body: every ``parameter`` one, even where a port list makes
    it local by IEEE 1800 6.20.1: Icarus (defparam) and Yosys (chparam) override it all the same."""
    out: list[Syntax] = []
    ports = mod.header.parameters
    inherited = True
    for d in nodes(ports.declarations) if ports is not None else ():
        if d.keyword.kind.name != "Unknown":
            inherited = d.keyword.kind.name == "ParameterKeyword"
        if inherited:
            out.append(d)
    for n in walk(mod):
        if (n.kind in PARAMETER_DECLARATIONS and n.parent.kind != K.ParameterPortList
                and n.keyword.kind.name == "ParameterKeyword"):
            out.append(n)
    return out


def parameter_declarators(mod: Syntax) -> Iterator[Syntax]:
    """The declarators of a module's overridable value parameters (``overridable_declarations``)."""
    for decl in overridable_declarations(mod):
        if decl.kind == K.ParameterDeclaration:
            yield from nodes(decl.declarators)


def overridable_parameters(mod: Syntax, text: str) -> dict[str, str]:
    """Overridable value parameters of a module and the text of their default values."""
    out: dict[str, str] = {}
    for d in parameter_declarators(mod):
        init = d.initializer
        value = node_text(init.expr, text) if init is not None else None
        out[d.name.valueText] = (value or "").strip()
    return out
