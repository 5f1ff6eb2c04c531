"""Verilog out of a chat response: fenced blocks, several modules, prose around code, bare code,
``<think>`` blocks. No usable code is a result with a reason, never an exception."""

from __future__ import annotations

import re
from dataclasses import dataclass

THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)
MODULE_START = re.compile(r"^[ \t]*(?:\(\*.*?\*\)\s*)?(?:module|macromodule)\s+([A-Za-z_][A-Za-z0-9_$]*)", re.M)
ENDMODULE = re.compile(r"\bendmodule\b")
DIRECTIVE = re.compile(r"^[ \t]*`(?:timescale|define|default_nettype|include|ifdef|ifndef|else|endif|undef)\b.*$", re.M)


@dataclass(frozen=True)
class Extracted:
    """The code (every module once, last definition wins), the module names, or why there is none."""

    code: str | None
    modules: tuple[str, ...] = ()
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.code is not None

    def to_dict(self) -> dict:
        return {"ok": self.ok, "modules": list(self.modules), "reason": self.reason}


def _strip_think(text: str) -> tuple[str, str]:
    """(text outside reasoning, text of an unterminated reasoning block)."""
    text = THINK.sub("", text)
    low = text.lower()
    at = low.find("<think>")
    if at < 0:
        return text, ""
    return text[:at], text[at + len("<think>"):]


def _modules(code: str) -> tuple[list[tuple[str, str]], bool]:
    """(name, text) of each complete module in ``code`` (with the directives just before it),
    and whether a module was left open (a truncated response)."""
    out: list[tuple[str, str]] = []
    pos = 0
    truncated = False
    while True:
        m = MODULE_START.search(code, pos)
        if not m:
            break
        end = _endmodule(code, m.end())
        if not end:
            truncated = True
            break
        nxt = MODULE_START.search(code, m.end())
        if nxt and nxt.start() < end.start():  # a module opened inside another: the first is broken
            truncated = True
            pos = nxt.start()
            continue
        body = code[m.start():end.end()].strip("\n")
        out.append((m.group(1), "\n".join(_preamble(code[pos:m.start()]) + [body])))
        pos = end.end()
    return out, truncated


def _endmodule(code: str, pos: int) -> re.Match | None:
    """The next ``endmodule`` keyword that is not inside a // comment."""
    for m in ENDMODULE.finditer(code, pos):
        line_start = code.rfind("\n", 0, m.start()) + 1
        if "//" not in code[line_start:m.start()]:
            return m
    return None


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


def _blocks(text: str) -> list[str]:
    """Fenced code blocks that hold a module; else the whole text (bare code with prose around it)."""
    fenced = [body for _lang, body in FENCE.findall(text) if MODULE_START.search(body)]
    return fenced or [text.replace("```", "")]


def extract_verilog(text: str | None, top: str) -> Extracted:
    """Every complete module in the response; fails unless module ``top`` is among them."""
    if not text or not text.strip():
        return Extracted(None, reason="empty response")
    outside, unfinished_thought = _strip_think(text)
    found: list[tuple[str, str]] = []
    truncated = False
    for source in (outside, unfinished_thought):
        if not source.strip():
            continue
        for block in _blocks(source):
            mods, cut = _modules(block)
            found += mods
            truncated |= cut
        if found:
            break
    if not found:
        why = "response truncated inside a module" if truncated else "no Verilog module in the response"
        return Extracted(None, reason=why)
    by_name: dict[str, str] = {}
    for name, body in found:  # a later definition replaces an earlier one (the "corrected version")
        by_name[name] = body
    names = tuple(by_name)
    if top not in by_name:
        return Extracted(None, names, reason=f"no module named `{top}` in the response (found: {', '.join(names)})")
    return Extracted("\n\n".join(by_name.values()) + "\n", names)
