"""Whose fault a tool crash is: the design's, or the tool's.

A tool that dies on a signal while reading or simulating one design may have been driven there by that
design (a hostile or merely odd candidate: Icarus' vvp overflows its stack on a deep recursion in an
automatic function); if it dies the same way on a design known to be good, the tool is broken. So a crash
on a candidate is asked again, with the same script or bench, on the known-good design: the reference when
the stage has one (it exercises the same operators and fits the same bench), else a two-gate canary. Only
a crash there too is a tool fault (exit 3); otherwise the candidate's gate fails (exit 1) and a search goes
on without it, instead of stopping on three such candidates as "repeated tool faults". A crash on the
reference itself (the candidate *is* the reference) is a fault at once: nothing is known good then.

``blame_by`` is the one mechanism: the stage says how to run its check on a ``KnownGood`` design (a
synthesis script, an Icarus compile, a differential or self-checking bench, a cocotb test) and gets either
the failed gate's sentence or a ``ToolError``. ``blame`` is its form for a tool driven by one script.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ToolError
from ..hdl.canonical import HEADER_EXT, SOURCE_EXT
from ..runner import ToolResult
from .context import CANONICAL, GOLDEN, StageContext, checked_params
from .golden import golden_files
from .model import Invocation, Reply, Request, call

FOLDER = "known-good"
CANARY_TOP = "hh_canary"
CANARY = f"module {CANARY_TOP}(input a, input b, output y);\n  assign y = a & b;\nendmodule\n"
CANARY_TB_TOP = "hh_canary_tb"
CANARY_TB = (f"module {CANARY_TB_TOP};\n  reg a, b;\n  wire y;\n  {CANARY_TOP} dut(a, b, y);\n"
             "  initial begin\n    a = 1; b = 1;\n    #1 $display(\"HH_CANARY y=%b\", y);\n    $finish;\n  end\n"
             "endmodule\n")  # a self-contained bench for a simulator when no known-good design fits the real one

# (sources relative to the tool's folder, top, parameters) -> the tool's script
ScriptFor = Callable[[list[str], str, Mapping[str, str]], str]


@dataclass(frozen=True)
class KnownGood:
    """A design known to be good, laid out for a re-run in ``folder`` (stage-relative): ``files`` to write
    (stage-relative; may be none when its text is already in the run folder), ``sources`` relative to
    ``folder``, its ``top`` and ``params``; ``which`` names it in messages."""

    folder: str
    sources: list[str]
    top: str
    params: Mapping[str, str]
    which: str
    files: Mapping[str, str] = field(default_factory=dict)

    @property
    def canary(self) -> bool:
        return self.top == CANARY_TOP


def crashed(res: ToolResult) -> bool:
    """Died on a signal, not stopped by one of hh's own limits (a limit hit is the input's doing anyway)."""
    return bool(res.signal_name) and not res.limited


def _is_reference(ctx: StageContext) -> bool:
    return ctx.golden is not None and ctx.golden.digest == ctx.cand.digest


def known_good(ctx: StageContext, folder: str = FOLDER, *, in_place: bool = False) -> KnownGood:
    """The design known to be good, for a re-run in ``folder`` (the golden side: the reference, or in ``hh run``'s
    Phase 2 the parent, which passed every gate). By default the reference with its modules
    renamed (``golden_files``: a script that names its top); with ``in_place`` the reference's canonical text
    under its own names, the design's top, in the candidate's place (a bench instantiates the top by name), its
    data files beside it. The canary when there is no reference or it is this design."""
    golden = ctx.golden
    if golden is None or _is_reference(ctx):
        return KnownGood(folder, ["canary.v"], CANARY_TOP, {}, "the canary design",
                         {posixpath.join(folder, "canary.v"): CANARY})
    which = "the reference" if golden.origin == "reference" else "the parent design"  # hh run's Phase 2: it passed
    if in_place:
        data = {posixpath.join(folder, Path(n).name): t for n, t in golden.files
                if not n.lower().endswith(SOURCE_EXT + HEADER_EXT)}
        return KnownGood(folder, [ctx.rel(f"{GOLDEN}/{CANONICAL}", folder)], ctx.top, checked_params(golden), which,
                         data)
    files, sources, top = golden_files(golden, folder)
    return KnownGood(folder, [posixpath.relpath(s, folder) for s in sources], top, ctx.params, which, files)


# the check re-run on a known-good design -> (how it crashed, or None; whether it passed)
Rerun = Callable[[KnownGood], Generator[Request, Reply, tuple[str | None, bool]]]


def judged(res: ToolResult) -> tuple[str | None, bool]:
    """A re-run's tool result as ``Rerun`` gives it."""
    return (res.describe() if crashed(res) else None), res.ok


def canary_sim(good: KnownGood, timeout_s: float) -> Generator[Request, Reply, ToolResult]:
    """Icarus (compile, then vvp) on the canary and a bench of its own, in ``good.folder``: a simulator's
    known-good run when no known-good design fits the crashed bench. The compile's result when it fails."""
    comp = (yield from call(Invocation("iverilog-canary", ("iverilog", "-g2012", "-o", "canary.vvp", "-s",
                                                          CANARY_TB_TOP, "canary.v", "canary_tb.v"),
                                       files={**good.files, posixpath.join(good.folder, "canary_tb.v"): CANARY_TB},
                                       cwd=good.folder, crash_is_data=True))).result
    if not comp.ok:
        return comp
    return (yield from call(Invocation("vvp-canary", ("vvp", "-n", "canary.vvp"), cwd=good.folder,
                                       timeout_s=timeout_s, crash_is_data=True))).result


def blame_by(ctx: StageContext, rerun: Rerun, what: str, *, in_place: bool = False,
             folder: str = FOLDER, head: str = "") -> Generator[Request, Reply, str]:
    """After a tool crashed on the candidate: ``rerun`` the same check on the known-good design (``known_good``)
    and judge by the run it returns. Raises ToolError when that crashes too, or when the candidate is the
    reference itself; returns the sentence a failed gate gives otherwise. ``what`` names the check ("script",
    "bench"), ``head`` opens the fault's message."""
    if _is_reference(ctx):
        raise ToolError(f"{head}the tool crashed on the reference itself (this design is the reference): the tool "
                        "is broken, not the design")
    good = known_good(ctx, folder, in_place=in_place)
    crash, ok = yield from rerun(good)
    if crash is not None:
        raise ToolError(f"{head}{crash} on {good.which} too: the tool is broken, not the design "
                        f"(logs in the stage folder's {good.folder}/)")
    return f"crashed on this design only ({good.which} {'passes' if ok else 'does not crash on'} the same {what})"


def blame(ctx: StageContext, inv: Invocation, script_name: str, script_for: ScriptFor,
          extra_files: Mapping[str, str] | None = None) -> Generator[Request, Reply, str]:
    """``blame_by`` for a tool driven by one script: ``inv``'s argv, with ``script_for``'s script for the
    known-good design (its modules renamed) as ``script_name`` and ``extra_files`` beside it."""

    def rerun(good: KnownGood) -> Generator[Request, Reply, tuple[str | None, bool]]:
        extra = {posixpath.join(good.folder, n): t for n, t in (extra_files or {}).items()}
        run = yield from call(Invocation(f"{inv.name}-known-good", inv.argv, cwd=good.folder, readable=inv.readable,
                                         files={**good.files, **extra, posixpath.join(good.folder, script_name):
                                                script_for(good.sources, good.top, good.params)},
                                         crash_is_data=True, timeout_s=inv.timeout_s))
        return judged(run.result)

    return (yield from blame_by(ctx, rerun, "script"))
