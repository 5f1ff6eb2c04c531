"""Gate 3, structure: the top module, its ports, and netlist hazards.

Tool choice:
- pyslang (``rtl_ast``): the top module exists, its ports (names, directions, widths after
  parameter overrides) match ``interface.all_ports()``, no ``initial`` blocks or ``#`` delays.
  A full SystemVerilog front end gives exact widths and file:line at ~1 ms; Yosys would drop
  delays and turn ``initial`` into init values without complaint.
- Yosys (``hierarchy -check; proc; flatten; check``, then ``synth``): inferred latches
  (``proc_dlatch`` reports each one with its process location), combinational loops, multiply
  driven nets and undriven wires (``check``), and that the design elaborates and synthesizes.
  These are properties of the elaborated netlist, which is what Yosys computes; recovering them
  from an AST would re-implement elaboration.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from ..config import Interface
from .context import GateContext
from .elaborate import ElaborationFailed, elaborate_bounded
from .result import GateResult, failed, passed
from .rtl_ast import Elaborated
from .tooling import clip, first_location, rel, run, strip_paths

LATCH = re.compile(r"^Latch inferred for signal `\\?([^']+)' from process `([^']+)'", re.M)
WARNING = re.compile(r"^Warning: (.*)$", re.M)
ERROR = re.compile(r"^((?:\S+?:\d+:\s*)?)ERROR: (.*)$", re.M)  # Yosys writes `file.v:17: ERROR: ...` for front-end errors


def _port_problem(el: Elaborated, iface: Interface, top: str) -> str | None:
    got = {p.name: p for p in el.ports}
    for want in iface.all_ports():
        p = got.get(want.name)
        if p is None:
            return f"module {top}: missing port `{want.name}` ({want.dir} [{want.width - 1}:0] in the interface)"
        if p.dir != want.dir:
            return f"{p.where}: port `{p.name}` is {p.dir}, the interface says {want.dir}"
        if p.width != want.width:
            return f"{p.where}: port `{p.name}` is {p.width} bit(s) wide, the interface says {want.width}"
    wanted = {p.name for p in iface.all_ports()}
    extra = [p for p in el.ports if p.name not in wanted]
    if extra:
        return f"{extra[0].where}: port `{extra[0].name}` is not in the interface"
    return None


def _yosys_script(ctx: GateContext, stage: Path, synth: bool = True) -> Path:
    chparam = "".join(f" -chparam {k} {v}" for k, v in ctx.params.items())
    files = " ".join(rel(p, stage) for p in ctx.sources())
    script = stage / "structure.ys"
    script.write_text(
        f"read_verilog -sv -I{rel(ctx.src_dir, stage)} {files}\n"
        f"hierarchy -check -top {ctx.top}{chparam}\n"
        "tee -o proc.log proc -noopt\n"
        "flatten\n"
        "tee -o check.log check\n"
        + (f"synth -top {ctx.top} -flatten\n" if synth else ""),
        encoding="utf-8",
    )
    return script


def _check_findings(text: str, top: str) -> str | None:
    """The first hazard in a ``check`` log, worded for a repair prompt."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith("Warning: "):
            continue
        msg = line.removeprefix("Warning: ")
        block = []
        for nxt in lines[i + 1 :]:
            if not nxt.startswith("    "):
                break
            block.append(nxt.strip())
        where = first_location("\n".join(block)) or first_location(msg)
        at = f"{where}: " if where else ""
        if msg.startswith("found logic loop"):
            wires = [b.split()[1].lstrip("\\") for b in block if b.startswith("wire ") and "\\" in b.split()[1]]
            via = f" through {', '.join(wires[:4])}" if wires else ""
            return f"{at}combinational loop in {top}{via}"
        if msg.startswith("multiple conflicting drivers"):
            drivers = "; ".join(strip_paths(b) for b in block[:3])
            return f"{at}multiply-driven net in {top}: {drivers} drive the same net"
        if "is used but has no driver" in msg:
            wire = msg.split()[1].split(".", 1)[-1].lstrip("\\")
            return f"{at}`{wire}` is used but never driven (undriven net or output)"
    return None


def _yosys(ctx: GateContext, stage: Path, synth: bool = True) -> str | None:
    script = _yosys_script(ctx, stage, synth)
    ctx.stage_inputs(stage)
    res = run(ctx, ["yosys", "-q", "-s", str(script)], name="yosys", stage=stage)
    text = clip(res.stdout + "\n" + res.stderr)
    proc_log = clip((stage / "proc.log").read_text(errors="replace")) if (stage / "proc.log").exists() else ""
    latch = LATCH.search(proc_log)
    if latch:
        signal = latch.group(1).split(".", 1)[-1].lstrip("\\")
        where = first_location(latch.group(2))
        return f"{where + ': ' if where else ''}inferred latch for `{signal}` (assign it on every path of the combinational block, or make it a flip-flop)"
    check_log = clip((stage / "check.log").read_text(errors="replace"), lines=4000) if (stage / "check.log").exists() else ""
    finding = _check_findings(check_log, ctx.top)
    if finding:
        return finding
    if res.timed_out:
        return f"yosys timed out after {ctx.tool_timeout:g} s (design too large?)"
    if res.returncode != 0:
        err = ERROR.search(text)
        msg = strip_paths(err.group(1) + err.group(2)) if err else res.describe()
        stage_name = "synthesis" if check_log else "elaboration"
        return f"yosys {stage_name} failed: {msg}"
    return None


def check_structure(ctx: GateContext, stage: Path, synth: bool = True) -> GateResult:
    """``synth=False`` leaves out the final generic ``synth`` (the caller synthesizes anyway and
    settles the claim later: ``chain.settle_synthesis``); every other check is the same."""
    t0 = time.monotonic()
    try:
        el = elaborate_bounded(ctx, stage)
    except ElaborationFailed as exc:
        return failed("structure", str(exc), time.monotonic() - t0)
    if not el.top_found:
        return failed("structure", f"top module `{ctx.top}` not found (modules: {', '.join(el.modules) or 'none'})",
                      time.monotonic() - t0, modules=el.modules)
    problem = _port_problem(el, ctx.design.interface, ctx.top)
    if problem:
        return failed("structure", problem, time.monotonic() - t0,
                      ports=[p.__dict__ for p in el.ports])
    if el.timing:
        return failed("structure", f"{el.timing[0]} is not allowed in a design (simulation-only construct)",
                      time.monotonic() - t0, timing=el.timing)
    problem = _yosys(ctx, stage, synth)
    if problem:
        return failed("structure", problem, time.monotonic() - t0)
    return passed("structure", f"top `{ctx.top}` and {len(el.ports)} ports match; no latches, loops, "
                  "multiple or missing drivers; synthesizes", time.monotonic() - t0)
