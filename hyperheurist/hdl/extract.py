"""Verilog modules out of free text (a chat response): fenced blocks first, then each module's extent as
pyslang parses it, so an ``endmodule`` in a comment or a string does not end a module.

A module starts at a ``module``/``macromodule`` keyword token that begins its line (after an optional
attribute), as code does and prose rarely does; it runs to the ``endmodule`` the parser matches, within
the text before the next start. A start with no such ``endmodule`` (a cut response, or a module opened
inside another) is a truncated module. No `` `include`` in the text is followed (hdl.parse.parse).
"""

from __future__ import annotations

import re

from pyslang import syntax
from pyslang.parsing import TokenKind

from .parse import K, parse
from .tokens import TokenStream, utf8

FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)
LINE_START = re.compile(rb"[ \t]*(?:\(\*.*?\*\)\s*)?")  # what may come before a module keyword on its line
DIRECTIVE = re.compile(r"^[ \t]*`(?:timescale|define|default_nettype|include|ifdef|ifndef|else|endif|undef)\b.*$")
_MODULE = {TokenKind.ModuleKeyword, TokenKind.MacromoduleKeyword}


def code_blocks(text: str) -> list[str]:
    """Fenced code blocks that hold a module; else the whole text (bare code with prose around it)."""
    fenced = [body for _lang, body in FENCE.findall(text) if module_starts(utf8(body))]
    return fenced or [text.replace("```", "")]


def module_starts(data: bytes) -> list[int]:
    """Byte offsets where a module declaration begins a line of ``data``."""
    out = []
    for tok, kind in TokenStream(data):
        if kind in _MODULE:
            at = tok.location.offset
            line = data.rfind(b"\n", 0, at) + 1
            if LINE_START.fullmatch(data, line, at):
                out.append(line)
    return out


def _declaration(region: bytes) -> tuple[str, int] | None:
    """(name, end offset) of the complete module declaration ``region`` begins with, or None."""
    try:
        tree = parse(region.decode("utf-8"))
    except RuntimeError:  # nesting past pyslang's limit: no usable module here
        return None
    root = tree.root  # the declaration itself when it is all the text holds, else a compilation unit
    first = next(iter(root.members), None) if isinstance(root, syntax.CompilationUnitSyntax) else root
    if not isinstance(first, syntax.ModuleDeclarationSyntax) or first.kind != K.ModuleDeclaration:
        return None
    end = first.endmodule
    if end.isMissing or first.header.name.isMissing:
        return None
    return first.header.name.valueText, int(end.range.end.offset)


def module_texts(text: str) -> tuple[list[tuple[str, str]], bool]:
    """(name, text) of each complete module in ``text`` (with the comment and directive lines just before
    it), and whether a module was left open (a truncated response)."""
    data = utf8(text)
    starts = module_starts(data)
    out: list[tuple[str, str]] = []
    truncated = False
    prev_end = 0
    for i, start in enumerate(starts):
        stop = starts[i + 1] if i + 1 < len(starts) else len(data)
        found = _declaration(data[start:stop])
        if found is None:
            truncated = True
            continue
        name, end = found
        body = data[start:start + end].decode("utf-8").strip("\n")
        head = _preamble(data[prev_end:start].decode("utf-8"))
        out.append((name, "\n".join([*head, body])))
        prev_end = start + end
    return out, truncated


def _preamble(head: str) -> list[str]:
    """The comment and directive lines right before a module (its header), not prose further up."""
    keep: list[str] = []
    for line in reversed(head.splitlines()):
        stripped = line.strip()
        if stripped.startswith("//") or DIRECTIVE.match(line):
            keep.append(stripped)
        elif stripped:
            break
    return keep[::-1]
