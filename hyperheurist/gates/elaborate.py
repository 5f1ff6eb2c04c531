"""pyslang elaboration of untrusted RTL, bounded: hdl.elaborate's sandboxed child with the design's
memory and time limits (a generate bomb or a pyslang crash ends the child, never hh)."""

from __future__ import annotations

import json
from pathlib import Path

from ..hdl.elaborate import CHILD_ARGV, CHILD_READABLE, Elaborated
from .context import GateContext
from .tooling import run


class ElaborationFailed(Exception):
    """pyslang could not elaborate the design within the limits, or crashed on it: the design's fault."""


def elaborate_bounded(ctx: GateContext, stage: Path) -> Elaborated:
    argv = [*CHILD_ARGV, ctx.top, json.dumps(ctx.params), *map(str, ctx.sources())]
    res = run(ctx, argv, name="pyslang", stage=stage, readable=[CHILD_READABLE], crash_is_data=True)
    if res.limited:
        raise ElaborationFailed(f"elaboration stopped: {res.describe()} (generate loop or recursion too large?)")
    if res.returncode != 0:
        last = [ln for ln in res.stderr.strip().splitlines() if ln.strip()][-1:] or [res.describe()]
        raise ElaborationFailed(f"pyslang could not elaborate the design: {res.describe()}: {last[0][:200]}")
    try:
        return Elaborated.from_json(res.stdout)
    except (ValueError, TypeError, KeyError) as exc:
        raise ElaborationFailed(f"pyslang's report is unreadable: {exc}") from None
