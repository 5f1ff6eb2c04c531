"""A small Verilog lexer for the safety gate: separates code, comments and string literals.

Enough to find system-task names, compiler directives and file names without being fooled by
text inside comments or strings; it does not parse.

Superseded by hdl.tokens (pyslang's lexer); kept only while hdl/canonical.py (tool_conditionals) and
gates/golden.py (module_names) import it: hdl.tokens.conditionals and hdl.rename replace those uses.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field


@dataclass
class Lexed:
    code: str  # the text with comments and string bodies blanked (same length, newlines kept)
    comments: list[tuple[int, str]] = field(default_factory=list)  # (offset, text)
    strings: dict[int, str] = field(default_factory=dict)  # offset of the opening quote -> value
    unterminated: int | None = None  # offset of an unterminated comment or string
    _newlines: list[int] | None = field(default=None, repr=False)

    def line_of(self, offset: int) -> int:
        if self._newlines is None:  # built once: a scan asks for many lines of a large file
            self._newlines = [i for i, c in enumerate(self.code) if c == "\n"]
        return bisect.bisect_left(self._newlines, offset) + 1


def _blank(chunk: str) -> str:
    return "".join("\n" if c == "\n" else " " for c in chunk)


def lex(text: str) -> Lexed:
    out: list[str] = []
    res = Lexed(code="")
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            res.comments.append((i, text[i:j]))
            out.append(_blank(text[i:j]))
            i = j
        elif c == "/" and nxt == "*":
            j = text.find("*/", i + 2)
            if j < 0:
                res.unterminated = i
                j = n
            else:
                j += 2
            res.comments.append((i, text[i:j]))
            out.append(_blank(text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if j >= n or text[j] != '"':
                res.unterminated = i
                j = min(j, n)
                out.append(_blank(text[i:j]))
                i = j
                continue
            res.strings[i] = text[i + 1 : j]
            out.append('"' + _blank(text[i + 1 : j]) + '"')
            i = j + 1
        elif c == "\\":
            # escaped identifier: runs to the next white space; kept as code
            j = i + 1
            while j < n and not text[j].isspace():
                j += 1
            out.append(text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    res.code = "".join(out)
    return res
