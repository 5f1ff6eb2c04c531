"""Gate 2, compile: Icarus Verilog (-g2012) and Verilator --lint-only.

Waiver policy: every error fails the gate (Icarus errors, Verilator ``%Error``); Verilator lint
warnings (WIDTH*, UNUSED, CASEINCOMPLETE, ...) are reported in ``details.warnings`` but waived,
because public RTL suites show that fatal WIDTH warnings reject good, idiomatic designs. The
hazards that matter (latches, loops, multiple drivers, undriven outputs) are checked by the
structure gate on Yosys' elaborated netlist instead of by lint heuristics.
Verilator runs with ``--no-timing`` so delays are a structure-gate finding, not a lint error.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from .context import GateContext
from .result import GateResult, failed, passed
from .tooling import rel, run, strip_paths

FILE_LINE = re.compile(r":\d+:")


def _iverilog_error(text: str) -> str | None:
    """The first ``file:line: ... error`` line (a line-by-line test: linear in the output's size)."""
    for line in text.splitlines():
        low = line.lower()
        if FILE_LINE.search(line) and ("error" in low or "unable" in low):
            return line
    return None


VERILATOR_ERR = re.compile(r"^%Error[^:]*: (.*)$", re.M)
VERILATOR_WARN = re.compile(r"^%Warning-([A-Z0-9_]+): (.*)$", re.M)
MAX_WARNINGS = 20


def _iverilog(ctx: GateContext, stage: Path) -> str | None:
    argv = ["iverilog", "-g2012", "-o", str(stage / "a.vvp"), "-s", ctx.top, f"-I{ctx.src_dir}"]
    argv += [f"-P{ctx.top}.{k}={v}" for k, v in ctx.params.items()]
    res = run(ctx, argv + [str(p) for p in ctx.sources()], name="iverilog", stage=stage)
    if res.timed_out:
        return f"iverilog timed out after {ctx.tool_timeout:g} s"
    if res.returncode == 0:
        return None
    text = strip_paths(res.stderr + "\n" + res.stdout)
    line = _iverilog_error(text) or next((ln for ln in text.splitlines() if ln.strip()), res.describe())
    return f"iverilog: {line.strip()}"


def _verilator(ctx: GateContext, stage: Path) -> tuple[str | None, list[str]]:
    # relative paths: Verilator expands $VAR and $(VAR) in file names, so the run folder's name must not reach it
    argv = ["verilator", "--lint-only", "-Wno-fatal", "--no-timing", "--top-module", ctx.top, f"-I{rel(ctx.src_dir, stage)}"]
    argv += [f"-G{k}={v}" for k, v in ctx.params.items()]
    res = run(ctx, argv + [rel(p, stage) for p in ctx.sources()], name="verilator", stage=stage)
    text = strip_paths(res.stderr + "\n" + res.stdout)
    warnings = [f"{code}: {msg.strip()}" for code, msg in VERILATOR_WARN.findall(text)]
    if res.timed_out:
        return f"verilator timed out after {ctx.tool_timeout:g} s", warnings
    if res.returncode == 0:
        return None, warnings
    errors = [e for e in VERILATOR_ERR.findall(text) if not e.startswith("Exiting due to")]
    first = errors[0] if errors else next((ln for ln in text.splitlines() if ln.strip()), res.describe())
    return f"verilator: {first.strip()}", warnings


def check_compile(ctx: GateContext, stage: Path) -> GateResult:
    t0 = time.monotonic()
    err = _iverilog(ctx, stage)
    if err:
        return failed("compile", err, time.monotonic() - t0, tool="iverilog")
    err, warnings = _verilator(ctx, stage)
    details = {"warnings": warnings[:MAX_WARNINGS], "warning_count": len(warnings)}
    if err:
        return failed("compile", err, time.monotonic() - t0, tool="verilator", **details)
    note = f" ({len(warnings)} lint warning(s) waived)" if warnings else ""
    return passed("compile", f"iverilog and verilator lint clean{note}", time.monotonic() - t0, **details)
