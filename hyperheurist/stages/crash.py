"""Whose fault a tool crash is: the design's, or the tool's.

A synthesizer that dies on a signal while reading one design may have been driven there by that design (a
hostile or merely odd candidate); if it dies the same way on a design known to be good, the tool is broken.
So a crash on a candidate is asked again, with the same script, on the known-good design: the reference
when the stage has one (it exercises the same operators), else a two-gate canary. Only a crash there too
is a tool fault (exit 3); otherwise the candidate's gate fails (exit 1) and a search goes on without it,
instead of stopping on three such candidates as "repeated tool faults".
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Generator, Mapping

from ..errors import ToolError
from .context import StageContext
from .golden import golden_files
from .model import Invocation, Reply, Request, call

FOLDER = "known-good"
CANARY_TOP = "hh_canary"
CANARY = f"module {CANARY_TOP}(input a, input b, output y);\n  assign y = a & b;\nendmodule\n"

# (sources relative to the tool's folder, top, parameters) -> the tool's script
ScriptFor = Callable[[list[str], str, Mapping[str, str]], str]


def known_good(ctx: StageContext) -> tuple[dict[str, str], list[str], str, Mapping[str, str]]:
    """Files (stage-relative), sources (relative to ``FOLDER``), top and parameters of a design known to be
    good: the reference with its modules renamed, or the canary when there is none or it is this design."""
    golden = ctx.golden
    if golden is not None and golden.digest != ctx.cand.digest:
        files, sources, top = golden_files(golden, FOLDER)
        return files, [posixpath.relpath(s, FOLDER) for s in sources], top, ctx.params
    return {f"{FOLDER}/canary.v": CANARY}, ["canary.v"], CANARY_TOP, {}


def blame(ctx: StageContext, inv: Invocation, script_name: str, script_for: ScriptFor,
          extra_files: Mapping[str, str] | None = None) -> Generator[Request, Reply, str]:
    """After ``inv`` crashed on the candidate: run its script on the known-good design. Raises ToolError
    when that crashes too; returns the sentence a failed gate gives otherwise."""
    files, sources, top, params = known_good(ctx)
    which = "the canary design" if top == CANARY_TOP else "the reference"
    extra = {posixpath.join(FOLDER, n): t for n, t in (extra_files or {}).items()}
    run = yield from call(Invocation(f"{inv.name}-known-good", inv.argv, cwd=FOLDER, readable=inv.readable,
                                     files={**files, **extra, posixpath.join(FOLDER, script_name):
                                            script_for(sources, top, params)},
                                     crash_is_data=True, timeout_s=inv.timeout_s))
    if run.result.signal_name and not run.result.limited:
        raise ToolError(f"{run.result.describe()} on {which} too: the tool is broken, not the design "
                        f"(logs in the stage folder's {FOLDER}/)")
    return f"crashed on this design only ({which} passes the same script)"
