"""Verilog out of a chat response: ``<think>`` blocks set aside, then hdl.extract's modules (fenced blocks,
several modules, prose around code, bare code). No usable code is a result with a reason, never an exception."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..hdl.extract import code_blocks, module_texts

THINK = re.compile(r"<think>.*?</think>", re.S | re.I)


@dataclass(frozen=True)
class Extracted:
    """The code (every module once, last definition wins), the module names, or why there is none."""

    code: str | None
    modules: tuple[str, ...] = ()
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.code is not None

    def to_dict(self) -> dict[str, bool | list[str] | str]:
        return {"ok": self.ok, "modules": list(self.modules), "reason": self.reason}


def _strip_think(text: str) -> tuple[str, str]:
    """(text outside reasoning, text of an unterminated reasoning block)."""
    text = THINK.sub("", text)
    low = text.lower()
    at = low.find("<think>")
    if at < 0:
        return text, ""
    return text[:at], text[at + len("<think>"):]


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
        for block in code_blocks(source):
            mods, cut = module_texts(block)
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
