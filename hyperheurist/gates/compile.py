"""Compile stage: Icarus Verilog (-g2012), then Verilator --lint-only.

Waiver policy: every error fails the stage (Icarus errors, Verilator ``%Error``); Verilator lint
warnings (WIDTH*, UNUSED, CASEINCOMPLETE, ...) are reported in ``details.warnings`` but waived,
because public RTL suites show that fatal WIDTH warnings reject good, idiomatic designs. The
hazards that matter (latches, loops, multiple drivers, undriven outputs) are checked by the
structure stage on Yosys' elaborated netlist instead of by lint heuristics.
Verilator runs with ``--no-timing`` so delays are a structure finding, not a lint error.
Paths are relative to the stage folder: Verilator expands ``$VAR`` in file names, so the run
folder's name must not reach it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Generator
from dataclasses import dataclass, replace
from typing import TypedDict

from ..errors import ToolError
from ..sim.cocotb_run import COMMAND_FILE, icarus_flags
from ..stages.context import StageContext
from ..stages.crash import KnownGood, blame_by, crashed, judged
from ..stages.model import Invocation, Plan, Reply, Request, StageId, ToolRun, call, failed, passed
from ..stages.vetted import Vetted
from .tooling import strip_paths

FILE_LINE = re.compile(r":\d+:")
TIME_UNITS = re.compile(r"\b(?:timeunit|timeprecision)\b|\$(?:timeunit|timeprecision)\b")
IMAGE = "a.vvp"


@dataclass(frozen=True)
class CocotbImage:
    """The compile stage's Icarus image, compiled with ``flags`` (cocotb's): the simulation stage may hand it
    to its cocotb run instead of building the same image again."""

    path: str  # run-folder-relative
    flags: tuple[str, ...]

VERILATOR_ERR = re.compile(r"^%Error[^:]*: (.*)$", re.M)
VERILATOR_WARN = re.compile(r"^%Warning-([A-Z0-9_]+): (.*)$", re.M)
MAX_WARNINGS = 20


class CompileDetails(TypedDict):
    """The stage's details: Verilator's lint warnings (the first MAX_WARNINGS) and how many there were."""

    warnings: list[str]
    warning_count: int


def iverilog(ctx: StageContext) -> Invocation:
    """Icarus' compile. With cocotb's flags (``icarus_flags``: its default timescale too) unless the text
    declares a time unit of its own: only then can a default timescale change Icarus' verdict (a lone
    ``timeunit 1ps`` fails under Icarus' own 1 s default, a lone ``timeprecision 1ms`` under 1 ns). The image
    then is what the simulation stage's cocotb run would build (``CocotbImage``)."""
    if not TIME_UNITS.search(ctx.value(StageId.SAFETY, Vetted).canonical.text):
        return Invocation("iverilog", ("iverilog", "-o", IMAGE, *icarus_flags(ctx.top, ctx.params),
                                       f"-I{ctx.src_dir()}", *ctx.sources()), files=dict([COMMAND_FILE]),
                          crash_is_data=True)
    argv = ["iverilog", "-g2012", "-o", IMAGE, "-s", ctx.top, f"-I{ctx.src_dir()}"]
    argv += [f"-P{ctx.top}.{k}={v}" for k, v in ctx.params.items()]
    return Invocation("iverilog", (*argv, *ctx.sources()), crash_is_data=True)


def verilator(ctx: StageContext) -> Invocation:
    argv = ["verilator", "--lint-only", "-Wno-fatal", "--no-timing", "--top-module", ctx.top, f"-I{ctx.src_dir()}"]
    argv += [f"-G{k}={v}" for k, v in ctx.params.items()]
    return Invocation("verilator", (*argv, *ctx.sources()))


def _iverilog_error(text: str) -> str | None:
    """The first ``file:line: ... error`` line (a line-by-line test: linear in the output's size)."""
    for line in text.splitlines():
        low = line.lower()
        if FILE_LINE.search(line) and ("error" in low or "unable" in low):
            return line
    return None


def iverilog_problem(run: ToolRun, timeout_s: float) -> str | None:
    """Why Icarus refused the design, or None. A crash after Icarus reported errors in the design (Icarus 11
    can hit an internal assertion then) is the design's failure; a crash with no error reported is asked of the
    known-good design first (``CompileStage``, ``stages.crash``): ``crashed_silently`` tells that case."""
    _runnable(run, "iverilog")
    res = run.result
    if res.timed_out:
        return f"iverilog timed out after {timeout_s:g} s"
    if res.returncode == 0:
        return None
    text = strip_paths(run.text())
    line = _iverilog_error(text) or next((ln for ln in text.splitlines() if ln.strip()), res.describe())
    suffix = f" (then iverilog crashed: {res.describe()})" if res.signal_name else ""
    return f"iverilog: {line.strip()}{suffix}"


def crashed_silently(run: ToolRun) -> bool:
    """Icarus died on a signal (not a limit) with no error reported in the design."""
    return crashed(run.result) and _iverilog_error(strip_paths(run.text())) is None


def known_good_compile(inv: Invocation, good: KnownGood) -> Generator[Request, Reply, tuple[str | None, bool]]:
    """``inv``'s compile (the same flags) of the known-good design, in its folder: what ``stages.crash`` judges by."""
    flags = ("-g2012", "-s", good.top, *(f"-P{good.top}.{k}={v}" for k, v in good.params.items()))
    files = {**good.files, **{posixpath.join(good.folder, k): t for k, t in inv.files.items()}}
    cmd = ("-f", COMMAND_FILE[0]) if COMMAND_FILE[0] in inv.files else ()
    run = yield from call(Invocation("iverilog-known-good", ("iverilog", "-o", IMAGE, *flags, *cmd, *good.sources),
                                     files=files, cwd=good.folder, crash_is_data=True))
    return judged(run.result)


NOT_RUNNABLE = 127  # the shell's and env's "command not found": a wrapper's interpreter (Verilator's perl) is missing


def _runnable(run: ToolRun, tool: str) -> None:
    """ToolError when the tool could not run at all (exit 127: its interpreter is missing), which is the
    machine's fault, never the design's."""
    if run.result.returncode == NOT_RUNNABLE:
        first = next((ln for ln in run.text().splitlines() if ln.strip()), run.result.describe())
        raise ToolError(f"{tool} could not run: {first.strip()} (hh doctor says what is missing)")


def verilator_verdict(run: ToolRun, timeout_s: float) -> tuple[str | None, list[str]]:
    _runnable(run, "verilator")
    res = run.result
    text = strip_paths(run.text())
    warnings = [f"{code}: {msg.strip()}" for code, msg in VERILATOR_WARN.findall(text)]
    if res.timed_out:
        return f"verilator timed out after {timeout_s:g} s", warnings
    if res.returncode == 0:
        return None, warnings
    errors = [e for e in VERILATOR_ERR.findall(text) if not e.startswith("Exiting due to")]
    first = errors[0] if errors else next((ln for ln in text.splitlines() if ln.strip()), res.describe())
    return f"verilator: {first.strip()}", warnings


class CompileStage:
    id = StageId.COMPILE
    inputs = ("canonical/canonical.v",)
    outputs = (IMAGE,)
    config = ("top", "limits.tool_timeout_s")

    def skip_reason(self, ctx: StageContext) -> str | None:
        return None

    def plan(self, ctx: StageContext) -> Plan:
        inv = iverilog(ctx)
        run = yield from call(inv)
        if crashed_silently(run):  # the design's doing unless Icarus crashes on the known-good design too
            why = yield from blame_by(ctx, lambda good: known_good_compile(inv, good), "compile", in_place=True,
                                      head="iverilog, with no error reported in the design: ")
            return failed(self.id, f"iverilog: {run.result.describe()} with no error reported: {why}", tool="iverilog")
        err = iverilog_problem(run, ctx.tool_timeout)
        if err:
            return failed(self.id, err, tool="iverilog")
        err, warnings = verilator_verdict((yield from call(verilator(ctx))), ctx.tool_timeout)
        details: CompileDetails = {"warnings": warnings[:MAX_WARNINGS], "warning_count": len(warnings)}
        if err:
            return failed(self.id, err, tool="verilator", **details)
        note = f" ({len(warnings)} lint warning(s) waived)" if warnings else ""
        image = CocotbImage(ctx.own(IMAGE), icarus_flags(ctx.top, ctx.params)) if inv.files else None
        return replace(passed(self.id, f"iverilog and verilator lint clean{note}", **details), value=image)
