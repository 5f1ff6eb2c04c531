"""Running tools for a gate: the runner with the design's limits, and tool messages made short.

Policy: a tool that exits with an error on a design is data (the gate fails); a tool killed by a
signal other than our own limits (wall time, output, memory, CPU) is an infrastructure fault (ToolError).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from ..errors import ToolError
from ..runner import ToolResult, run_tool
from .context import GateContext

# linear-time patterns only (tool output carries text the candidate chose): a location starts at a
# name boundary, and a folder prefix is stripped only where a token starts
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


def run(ctx: GateContext, argv: Sequence[str], *, name: str, stage: Path, timeout_s: float | None = None,
        cwd: Path | None = None, readable: Sequence[Path] = (), crash_is_data: bool = False) -> ToolResult:
    """``crash_is_data``: a crash is the design's fault (pyslang on odd RTL), not an infrastructure fault."""
    res = run_tool(list(argv), name=name, log_dir=stage, timeout_s=timeout_s or ctx.tool_timeout, cwd=cwd or stage,
                   mem_mb=ctx.mem_mb, sandbox=ctx.sandbox, readable=[*ctx.readable(), *readable])
    if res.signal_name and not res.limited and not crash_is_data:
        raise ToolError(f"{res.describe()} on {ctx.cand.short}; see {res.stderr_path}")
    return res


def rel(path: Path, stage: Path) -> str:
    """``path`` relative to the stage folder (the tools' working directory): Yosys scripts then never
    carry the run folder's name, which may hold spaces or quotes Yosys cannot take inside a token."""
    return os.path.relpath(path, stage)


def strip_paths(text: str) -> str:
    """``/long/run/dir/src/x.v:12`` -> ``x.v:12``: messages name the candidate's own files. The text
    is clipped first (``clip``)."""
    return FOLDERS.sub("", clip(text))


def first_location(text: str) -> str | None:
    m = LOC.search(clip(text))
    return f"{m.group(1)}:{m.group(2)}" if m else None
