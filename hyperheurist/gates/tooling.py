"""Tool messages made short and safe to read: bounded first, then linear-time patterns only
(tool output carries text the candidate chose)."""

from __future__ import annotations

import re

# a location starts at a name boundary, and a folder prefix is stripped only where a token starts
LOC = re.compile(r"(?<![A-Za-z0-9_.$-])([A-Za-z0-9_][A-Za-z0-9_.-]*\.s?vh?):(\d+)")
FOLDERS = re.compile(r"(?<![^\s:'`\"(])(?:[^\s:'`\"(/]*/)+(?=[A-Za-z0-9_][A-Za-z0-9_.-]*\.s?vh?:\d)")
CLIP_LINES, CLIP_WIDTH = 400, 500


def clip(text: str, lines: int = CLIP_LINES, width: int = CLIP_WIDTH) -> str:
    """Tool output bounded before any pattern looks at it: the first ``lines`` lines (a tool's first
    errors are the ones worth reporting), each cut to ``width`` characters."""
    out = []
    for n, line in enumerate(text.split("\n", lines)):
        if n == lines:
            break
        out.append(line[:width])
    return "\n".join(out)


def strip_paths(text: str) -> str:
    """``/long/run/dir/src/x.v:12`` -> ``x.v:12``: messages name the candidate's own files. The text
    is clipped first (``clip``)."""
    return FOLDERS.sub("", clip(text))


def first_location(text: str) -> str | None:
    m = LOC.search(clip(text))
    return f"{m.group(1)}:{m.group(2)}" if m else None
