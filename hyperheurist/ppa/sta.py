"""The STA stage: static timing and vectorless power with OpenSTA, one ``sta`` process per netlist.

Constraints (the SDC part of the script):
- sequential designs: ``create_clock`` on the clock port at ``ppa.clock_period_ns``; inputs and
  outputs are constrained against it with zero external delay. Several clocks: one ``create_clock``
  each (its ``period_ns`` or ``ppa.clock_period_ns``), each port against its domain's clock, and the
  domains asynchronous clock groups unless ``interface.synchronous_clocks``;
- combinational designs: a *virtual* clock of the same period, zero input/output delay, so the
  reported path is the input-to-output delay and slack = period - delay;
- the reset port is a false path (it is quasi-static; recovery checks would otherwise mask the
  real critical path);
- every input is driven by the library's smallest inverter, every output drives 4x that
  inverter's input capacitance (an FO4-like load), so delays are load- and slew-aware.
Critical-path delay is ``period - worst slack`` (includes clock-to-Q and setup), fmax = 1/delay.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from ..config import DesignConfig
from ..errors import ToolError
from ..stages.context import StageContext
from ..stages.model import Invocation, Plan, StageId, StageResult, call, failed
from .critical_path import Stage, endpoint, rtl_path
from .liberty import Liberty
from .synth import NETLIST_JSON, Synthesized

OUTPUT_LOAD_FANOUT = 4.0
_MARK = "HH_SECTION"
_NOT_FOUND = re.compile(r"module (\S+) not found")


class StaReport(TypedDict):
    """What ``parse_report`` reads from OpenSTA's marked output (ns; power in W)."""

    delay_ns: float
    slack_ns: float
    start: str  # the worst path's start and end pins
    end: str
    start_kind: str  # e.g. "input port clocked by hh_clk"
    end_kind: str
    path_group: str
    internal_w: float
    switching_w: float
    leakage_w: float
    path_report: str  # ``report_checks``' text (cut at 6000 characters)


class StaDetails(TypedDict):
    """The worst path beyond ``StaResult``'s figures: its ends' kinds, OpenSTA's report, and in RTL terms."""

    start_kind: str
    end_kind: str
    path_report: str
    stages: list[Stage]
    rtl_start: str  # ``s[6] (acc.v:9)``, "" when unknown
    rtl_end: str


@dataclass
class StaResult:
    delay_ns: float
    slack_ns: float
    start: str
    end: str
    path_group: str
    internal_w: float
    switching_w: float
    leakage_w: float
    details: StaDetails


UNMAPPED = re.compile(r"module \$_(DLATCH|SR|DLATCHSR|ALDFF)\w* not found")


def _tcl(text: str) -> str:
    """A Tcl word in braces; refuses characters that could escape them."""
    if any(c in text for c in "{}\\\n"):
        raise ToolError(f"unusable name for OpenSTA: {text!r}")
    return "{" + text + "}"


def clock_periods(design: DesignConfig) -> dict[str, float]:
    """SDC clock name -> period in ns: ``hh_clk`` for the main clock, ``hh_clk_<port>`` for the others."""
    default = design.ppa.clock_period_ns
    clocks = design.interface.clocks
    return {("hh_clk" if i == 0 else f"hh_clk_{c.name}"): c.period_ns or default for i, c in enumerate(clocks)} \
        or {"hh_clk": default}


def _domains(design: DesignConfig, tu_ns: float) -> list[str]:
    """One create_clock per clock; each data port timed against its domain's clock (default: the main one);
    clocks not declared synchronous are asynchronous groups (no path between domains is timed)."""
    iface = design.interface
    names = dict(zip((c.name for c in iface.clocks), clock_periods(design), strict=True))
    periods = clock_periods(design)
    lines = [f"create_clock -name {sdc} -period {periods[sdc] / tu_ns:.6g} [get_ports {_tcl(port)}]"
             for port, sdc in names.items()]
    lines.append("set data_in [delete_from_list [all_inputs] [get_ports {"
                 + " ".join(_tcl(c.name)[1:-1] for c in iface.clocks) + "}]]")
    special = iface.special_names()
    for p in iface.ports:
        if p.name in special or p.dir not in ("input", "output"):
            continue
        sdc = names[iface.domain_clock(p.domain).name]
        lines.append(f"set_{p.dir}_delay 0 -clock {sdc} [get_ports {_tcl(p.name)}]")
    if not iface.synchronous_clocks:
        lines.append("set_clock_groups -asynchronous " + " ".join(f"-group {sdc}" for sdc in names.values()))
    return lines


def build_script(netlist: str, top: str, design: DesignConfig, lib: Liberty, *, activity: float) -> str:
    iface = design.interface
    tu_ns = lib.time_unit_s / 1e-9
    period = clock_periods(design)["hh_clk"] / tu_ns  # OpenSTA takes times in the liberty's units
    inv = lib.inverter()
    in_pin, out_pin = inv.inputs()[0], inv.outputs()[0]
    load = OUTPUT_LOAD_FANOUT * in_pin.capacitance
    lines = [f"read_liberty {_tcl(str(lib.path))}", f"read_verilog {_tcl(str(netlist))}", f"link_design {_tcl(top)}"]
    if len(iface.clocks) > 1:
        lines += _domains(design, tu_ns)
    elif iface.clock:
        lines += [f"create_clock -name hh_clk -period {period:.6g} [get_ports {_tcl(iface.clock)}]",
                  f"set data_in [delete_from_list [all_inputs] [get_ports {_tcl(iface.clock)}]]"]
    else:
        lines += [f"create_clock -name hh_clk -period {period:.6g}", "set data_in [all_inputs]"]
    if len(iface.clocks) <= 1:
        lines += ["set_input_delay 0 -clock hh_clk $data_in", "set_output_delay 0 -clock hh_clk [all_outputs]"]
    lines += [f"set_driving_cell -lib_cell {_tcl(inv.name)} -pin {_tcl(out_pin.name)} $data_in",
              f"set_load {load:.6g} [all_outputs]"]
    for rst in iface.resets:
        lines.append(f"set_false_path -from [get_ports {_tcl(rst.name)}]")
    lines += [f"puts {_MARK}:checks", "report_checks -path_delay max -digits 6",
              f"puts {_MARK}:slack", "report_worst_slack -digits 6",
              f"set_power_activity -input -activity {activity:.6g}",
              f"puts {_MARK}:power", "report_power -digits 8", f"puts {_MARK}:end"]
    return "\n".join(lines) + "\n"


def first_error(text: str) -> str | None:
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("Error") or _NOT_FOUND.search(s):
            return s
    return None


def _sections(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    name = None
    buf: list[str] = []
    for line in text.splitlines():
        if line.startswith(_MARK + ":"):
            if name:
                out[name] = "\n".join(buf)
            name, buf = line.split(":", 1)[1].strip(), []
        elif name:
            buf.append(line)
    if name:
        out[name] = "\n".join(buf)
    return out


def _pin_name(text: str) -> str:
    return text.split(" (")[0].strip()


def parse_report(text: str, period_lib: float, tu_ns: float) -> StaReport:
    """Pull slack, start/end points and the power split out of the marked script output."""
    sec = _sections(text)
    if "end" not in sec:
        raise ToolError("OpenSTA output ended early (no end marker)")
    checks = sec.get("checks", "")
    start = re.search(r"^Startpoint:\s*(.+)$", checks, re.M)
    end = re.search(r"^Endpoint:\s*(.+)$", checks, re.M)
    group = re.search(r"^Path Group:\s*(\S+)", checks, re.M)
    slack_m = re.search(r"^\s*(-?[\d.]+(?:e[-+]?\d+)?)\s+slack\s+\((MET|VIOLATED)", checks, re.M)
    ws = re.search(r"worst slack\s+(\S+)", sec.get("slack", ""))
    if slack_m:
        slack = float(slack_m.group(1))
    elif ws and ws.group(1) not in ("INF", "inf"):
        slack = float(ws.group(1))
    else:
        slack = math.inf  # no constrained path (e.g. constant outputs)
    total = re.search(r"^Total\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", sec.get("power", ""), re.M)
    if not total:
        raise ToolError("cannot read OpenSTA report_power output (no Total line)")
    internal, switching, leakage = (float(total.group(i)) for i in (1, 2, 3))
    delay = 0.0 if math.isinf(slack) else (period_lib - slack) * tu_ns
    return StaReport(
        delay_ns=delay, slack_ns=(period_lib * tu_ns) if math.isinf(slack) else slack * tu_ns,
        start=_pin_name(start.group(1)) if start else "", end=_pin_name(end.group(1)) if end else "",
        start_kind=start.group(1).split(" (", 1)[-1].rstrip(")") if start else "",
        end_kind=end.group(1).split(" (", 1)[-1].rstrip(")") if end else "",
        path_group=group.group(1) if group else "",
        internal_w=internal, switching_w=switching, leakage_w=leakage,
        path_report=checks.strip()[:6000],
    )


class StaStage:
    id = StageId.STA
    inputs = ("synthesis netlist.v",)
    outputs = ("sta.tcl",)
    config = ("interface", "ppa.clock_period_ns", "ppa.input_activity", "ppa.liberty", "limits.tool_timeout_s")

    def skip_reason(self, ctx: StageContext) -> str | None:
        return None

    def plan(self, ctx: StageContext) -> Plan:
        lib = ctx.liberty
        assert lib is not None
        syn = ctx.value(StageId.SYNTHESIS, Synthesized)
        netlist = syn.netlist
        script = build_script(ctx.rel(netlist), ctx.top, ctx.design, lib, activity=ctx.design.ppa.input_activity)
        run = yield from call(Invocation("sta", ("sta", "-no_init", "-no_splash", "-exit", "sta.tcl"),
                                         files={"sta.tcl": script}, readable=(Path(lib.path).parent,)))
        res = run.result
        # OpenSTA prints read_verilog/link errors on stderr and later command errors on stdout:
        # the earlier (root-cause) error is the one to report.
        if res.limited:  # stopped by the design's limits: the design's fault
            return failed(self.id, f"OpenSTA stopped on this design: {res.describe()}")
        err = first_error(res.stderr) or first_error(res.stdout)
        if err is not None and UNMAPPED.search(err):  # a latch or other cell the library cannot map
            return failed(self.id, f"the netlist keeps cells the liberty cannot map (a latch?): {err}")
        if err is not None:
            raise ToolError(f"OpenSTA rejected the netlist: {err} (see {ctx.own('sta.stdout')})")
        if not res.ok:
            raise ToolError(f"OpenSTA failed: {res.describe()} (see {ctx.own('sta.stdout')})")
        tu_ns = lib.time_unit_s / 1e-9
        d = parse_report(res.stdout, ctx.design.ppa.clock_period_ns / tu_ns, tu_ns)
        period = clock_periods(ctx.design).get(d["path_group"])
        if period is not None and period != ctx.design.ppa.clock_period_ns and d["delay_ns"]:
            # the worst path is timed against its own clock's period
            d["delay_ns"] = period - d["slack_ns"]
        # the path in RTL terms: signals and file:line from the netlist's JSON twin (Yosys src attributes)
        outputs = {name: {p.name for p in cell.outputs()} for name, cell in lib.cells.items()}
        stages = rtl_path(d["path_report"], tu_ns, ctx.root / Path(netlist).with_name(NETLIST_JSON), syn.modules,
                          ctx.top, outputs)
        details = StaDetails(start_kind=d["start_kind"], end_kind=d["end_kind"], path_report=d["path_report"],
                             stages=stages, rtl_start=endpoint(stages, last=False), rtl_end=endpoint(stages, last=True))
        sta = StaResult(delay_ns=d["delay_ns"], slack_ns=d["slack_ns"], start=d["start"], end=d["end"],
                        path_group=d["path_group"], internal_w=d["internal_w"], switching_w=d["switching_w"],
                        leakage_w=d["leakage_w"],
                        details=details)
        return StageResult(self.id, True, f"critical path {sta.delay_ns:.3f} ns, slack {sta.slack_ns:.3f} ns",
                           {"delay_ns": sta.delay_ns, "slack_ns": sta.slack_ns, "start": sta.start, "end": sta.end,
                            "path_group": sta.path_group, "rtl_start": details["rtl_start"],
                            "rtl_end": details["rtl_end"],
                            "vectorless_power_w": {"internal": sta.internal_w, "switching": sta.switching_w,
                                                   "leakage": sta.leakage_w}}, value=sta)
