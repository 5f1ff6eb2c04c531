"""pyslang elaboration of untrusted RTL, bounded: a sandboxed child process with the design's
memory and time limits (a generate bomb or a pyslang crash ends the child, never hh)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from . import rtl_ast
from .context import GateContext
from .rtl_ast import Elaborated, PortInfo
from .tooling import run


class ElaborationFailed(Exception):
    """pyslang could not elaborate the design within the limits, or crashed on it: the design's fault."""


def elaborate_bounded(ctx: GateContext, stage: Path) -> Elaborated:
    script = Path(rtl_ast.__file__).resolve()
    argv = [sys.executable, "-I", str(script), ctx.top, json.dumps(ctx.params), *map(str, ctx.sources())]
    res = run(ctx, argv, name="pyslang", stage=stage, readable=[script.parent], crash_is_data=True)
    if res.limited:
        raise ElaborationFailed(f"elaboration stopped: {res.describe()} (generate loop or recursion too large?)")
    if res.returncode != 0:
        last = [ln for ln in res.stderr.strip().splitlines() if ln.strip()][-1:] or [res.describe()]
        raise ElaborationFailed(f"pyslang could not elaborate the design: {res.describe()}: {last[0][:200]}")
    try:
        data = json.loads(res.stdout)
        data["ports"] = [PortInfo(**p) for p in data["ports"]]
        return Elaborated(**data)
    except (ValueError, TypeError, KeyError) as exc:
        raise ElaborationFailed(f"pyslang's report is unreadable: {exc}") from None
