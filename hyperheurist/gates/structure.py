"""Structure stage: the top module, its ports, and netlist hazards.

Tool choice:
- pyslang (``hdl.elaborate``): the top module exists, its ports (names, directions, widths after
  parameter overrides) match ``interface.all_ports()``, no ``#`` delays or ``final`` blocks, and no
  ``initial`` blocks unless ``verification.initial: power_on_values`` and each assigns only constants
  to registers (power-on values: simulation and the proof start from them; PPA ignores them), judged as
  elaborated (``hdl.initial``: dead parameter branches vanish, constant-bound loops unroll).
  Then the mismatch rules (``hdl.mismatch``, docs/mismatch.md): x/z comparisons, incomplete sensitivity
  lists, synthesis-only pragmas and ``#`` delays, each refused, warned or allowed by ``verification.mismatch``.
  A full SystemVerilog front end gives exact widths and file:line at ~1 ms; Yosys would drop
  delays and turn ``initial`` into init values without complaint.
- Yosys (``hierarchy -check; proc; flatten; check``): inferred latches (``proc_dlatch`` reports
  each one with its process location), combinational loops, multiply driven nets and undriven
  wires (``check``), and that the design elaborates. Whether it synthesizes is the synthesis stage's.
  These are properties of the elaborated netlist, which is what Yosys computes; recovering them
  from an AST would re-implement elaboration.
"""

from __future__ import annotations

import json
import re

from ..config import Interface
from ..config.verification import Mismatch
from ..hdl.elaborate import CHILD_ARGV, CHILD_READABLE, Elaborated
from ..hdl.mismatch import Finding
from ..stages.context import StageContext
from ..stages.model import Invocation, Plan, StageId, ToolRun, call, failed, passed
from .tooling import clip, first_location, strip_paths

LATCH = re.compile(r"^Latch inferred for signal `\\?([^']+)' from process `([^']+)'", re.M)
# Yosys writes `file.v:17: ERROR: ...` for front-end errors
ERROR = re.compile(r"^((?:\S+?:\d+:\s*)?)ERROR: (.*)$", re.M)


def pyslang_invocation(ctx: StageContext) -> Invocation:
    """pyslang elaboration of untrusted RTL in a sandboxed child with the design's limits: a generate
    bomb or a pyslang crash ends the child, never hh (a crash is the design's fault)."""
    return Invocation("pyslang", (*CHILD_ARGV, ctx.top, json.dumps(ctx.params), *ctx.sources()),
                      readable=(CHILD_READABLE,), crash_is_data=True)


def elaborated(run: ToolRun) -> Elaborated | str:
    """pyslang's report, or why the design could not be elaborated."""
    res = run.result
    if res.limited:
        return f"elaboration stopped: {res.describe()} (generate loop or recursion too large?)"
    if res.returncode != 0:
        last = [ln for ln in res.stderr.strip().splitlines() if ln.strip()][-1:] or [res.describe()]
        return f"pyslang could not elaborate the design: {res.describe()}: {last[0][:200]}"
    try:
        return Elaborated.from_json(res.stdout)
    except (ValueError, TypeError, KeyError) as exc:
        return f"pyslang's report is unreadable: {exc}"


def port_problem(el: Elaborated, iface: Interface, top: str) -> str | None:
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


def timing_problem(el: Elaborated, power_on_values: bool, delays: str = "refuse") -> str | None:
    """The first simulation-only construct the policy does not accept, worded for a repair prompt
    (``delays``: ``verification.mismatch.delays``; a delay inside an ``initial`` block is the initial policy's)."""
    for t in el.timing:
        if power_on_values and t in el.power_on:
            continue
        if delays != "refuse" and t.endswith(": # delay"):
            continue
        if power_on_values and t in el.not_power_on:
            return (f"{t} holds {el.not_power_on[t]}: only constant assignments to registers are accepted "
                    "(power-on values), also in constant-bound for loops and in if branches on parameters")
        hint = " (verification.initial: power_on_values accepts constant power-on values)" \
            if t.endswith("initial block") else " (verification.mismatch.delays: warn accepts it)" \
            if t.endswith("# delay") else ""
        return f"{t} is not allowed in a design (simulation-only construct){hint}"
    return None


def mismatch_verdict(el: Elaborated, policy: Mismatch) -> tuple[str | None, list[str]]:
    """The first mismatch the policy refuses (worded for a repair prompt), and the ones it only warns of."""
    found = list(el.mismatch) + [Finding("delays", t.rsplit(": ", 1)[0], "a # delay: the simulators wait, Yosys "
                                         "ignores it") for t in el.timing if t.endswith(": # delay")]
    warn = [f"{f.where}: {f.what} ({f.rule})" for f in found if getattr(policy, f.rule) == "warn"]
    for f in found:
        if getattr(policy, f.rule) == "refuse":
            return (f"{f.where}: {f.what} (simulation and synthesis disagree; verification.mismatch.{f.rule}: "
                    "warn accepts it)"), warn
    return None, warn


def yosys_script(ctx: StageContext) -> str:
    chparam = "".join(f" -chparam {k} {v}" for k, v in ctx.params.items())
    return (f"read_verilog -sv -I{ctx.src_dir()} {' '.join(ctx.sources())}\n"
            f"hierarchy -check -top {ctx.top}{chparam}\n"
            "tee -o proc.log proc -noopt\n"
            "flatten\n"
            "tee -o check.log check\n")


def yosys_invocation(ctx: StageContext) -> Invocation:
    return Invocation("yosys", ("yosys", "-q", "-s", "structure.ys"),
                      files={"structure.ys": yosys_script(ctx), **ctx.data_files()}, outputs=("proc.log", "check.log"))


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


def yosys_problem(run: ToolRun, top: str, timeout_s: float) -> str | None:
    res = run.result
    text = clip(run.text())
    latch = LATCH.search(clip(run.outputs.get("proc.log", "")))
    if latch:
        signal = latch.group(1).split(".", 1)[-1].lstrip("\\")
        where = first_location(latch.group(2))
        return (f"{where + ': ' if where else ''}inferred latch for `{signal}` (assign it on every path of the "
                "combinational block, or make it a flip-flop)")
    check_log = clip(run.outputs.get("check.log", ""), lines=4000)
    finding = _check_findings(check_log, top)
    if finding:
        return finding
    if res.timed_out:
        return f"yosys timed out after {timeout_s:g} s (design too large?)"
    if res.returncode != 0:
        err = ERROR.search(text)
        msg = strip_paths(err.group(1) + err.group(2)) if err else res.describe()
        return f"yosys elaboration failed: {msg}"
    return None


class StructureStage:
    """Whether it synthesizes is the synthesis stage's verdict, not this one's."""

    id = StageId.STRUCTURE
    inputs = ("canonical/canonical.v",)
    outputs = ("proc.log", "check.log")
    config = ("top", "interface", "verification.initial", "verification.mismatch", "limits.tool_timeout_s",
              "limits.tool_mem_mb")

    def skip_reason(self, ctx: StageContext) -> str | None:
        return None

    def plan(self, ctx: StageContext) -> Plan:
        el = elaborated((yield from call(pyslang_invocation(ctx))))
        if isinstance(el, str):
            return failed(self.id, el)
        if not el.top_found:
            return failed(self.id, f"top module `{ctx.top}` not found (modules: {', '.join(el.modules) or 'none'})",
                          modules=el.modules)
        problem = port_problem(el, ctx.design.interface, ctx.top)
        if problem:
            return failed(self.id, problem, ports=[p.__dict__ for p in el.ports])
        policy = ctx.design.verification.mismatch
        problem = timing_problem(el, ctx.design.verification.initial == "power_on_values", policy.delays)
        if problem:
            return failed(self.id, problem, timing=el.timing)
        problem, warnings = mismatch_verdict(el, policy)
        if problem:
            return failed(self.id, problem, mismatch=[f.__dict__ for f in el.mismatch])
        problem = yosys_problem((yield from call(yosys_invocation(ctx))), ctx.top, ctx.tool_timeout)
        if problem:
            return failed(self.id, problem)
        note = (f"; {len(el.power_on)} initial block(s) of power-on values (PPA ignores them: ASIC flip-flops "
                "have no power-on state)") if el.power_on else ""
        if warnings:
            note += f"; {len(warnings)} simulation/synthesis mismatch(es) accepted by verification.mismatch: " \
                    f"{warnings[0]}"
        return passed(self.id, f"top `{ctx.top}` and {len(el.ports)} ports match; no latches, loops, "
                      f"multiple or missing drivers{note}", power_on=el.power_on, mismatch_warnings=warnings)
