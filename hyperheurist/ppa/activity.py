"""The power stage. ``vectorless``: OpenSTA's numbers from the STA stage (no tool). ``activity``: a
gate-level simulation of the mapped netlist under the design's stimulus, as follows.

The netlist runs with the liberty's Verilog cell models (``<lib>.v`` beside the ``.lib``) in Icarus,
zero-delay (functional toggles, no glitches), driven by the seeded random and corner-case vectors
the differential gate uses (``verification.differential``: cycles, seed; reset applied as
declared). Toggles per net come from the VCD. Then, per simulated cycle of ``ppa.clock_period_ns``:

- switching = sum over nets of 1/2 C V^2 per toggle, C = the input-pin capacitances the net drives
  (plus the output load STA uses, on output ports);
- internal  = the liberty's internal_power energy per output transition (rise/fall tables at the
  net's load and a nominal 0.1 ns slew), plus input-pin energies (e.g. clock pins) per toggle;
- leakage   = the sum of the cells' leakage.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TypedDict

from ..errors import ConfigError, ToolError
from ..sim.difftb import TbPort, TbSpec, clocking, stimulus_files
from ..stages.context import StageContext
from ..stages.model import Invocation, Plan, StageId, StageResult, call
from .liberty import Cell, Liberty, Pin
from .netlist import FlatNetlist, flatten
from .sta import OUTPUT_LOAD_FANOUT, StaResult
from .synth import NETLIST_JSON, Synthesized
from .vcd import count_toggles

TB_TOP, DUT = "hh_act_tb", "hh_dut"
NOMINAL_SLEW_S = 0.1e-9


class HotNet(TypedDict):
    net: str
    toggles: int  # rises and falls
    switching_j: float


class ActivityDetails(TypedDict):
    """How activity-based power was measured (``ppa.power: activity``)."""

    source: str
    stimulus: str
    cycles: int
    nets_toggled: int
    nets_seen: int
    nets_in_netlist: int
    toggles: int
    toggles_per_net_cycle: float
    hottest_nets: list[HotNet]  # the five with the most switching energy
    vcd_bytes: int


class VectorlessDetails(TypedDict):
    """Vectorless power: OpenSTA's, with one input activity for every input."""

    source: str
    input_activity: float


@dataclass(frozen=True)
class Power:
    """The power stage's output (W)."""

    internal_w: float
    switching_w: float
    leakage_w: float
    details: ActivityDetails | VectorlessDetails


def cell_models(lib: Liberty) -> Path:
    models = Path(lib.path).with_suffix(".v")
    if not models.is_file():
        raise ConfigError(f"ppa.power: activity needs the cell library's Verilog models at {models} "
                          f"(or use power: vectorless)")
    return models


def _connection(port: TbPort, split: bool) -> str:
    """``.a(a)``, or bit by bit when the netlist's ports were split (``splitnets -ports``: ``\\a[0]``)."""
    if not split:
        return f".{port.name}({port.name})"
    return ", ".join(f".\\{port.name}[{i}] ({port.name}[{i}])" for i in range(port.width))


def activity_tb(spec: TbSpec, top: str, split: frozenset[str] = frozenset()) -> str:
    """One instance of ``top`` driven by the stimulus files; timing as in the differential bench.
    Ports named in ``split`` are connected bit by bit."""
    ins = [p for p in spec.ports if p.dir == "input"]
    outs = [p for p in spec.ports if p.dir == "output"]
    data = [p for p in ins if p.name not in spec.special()]
    n = spec.cycles
    lines = ["`timescale 1ns/1ps", f"module {TB_TOP};", "  integer k;"]
    lines += [f"  reg [{p.width - 1}:0] {p.name};" for p in ins]
    lines += [f"  wire [{p.width - 1}:0] {p.name};" for p in outs]
    lines += [f"  reg [{p.width - 1}:0] stim_{p.name} [0:{n - 1}];" for p in data]
    if spec.reset:
        lines.append(f"  reg stim_reset [0:{n - 1}];")
    lines += [f"  reg stim_reset_{r.name} [0:{n - 1}];" for r in spec.more_resets]
    conns = ", ".join(_connection(p, p.name in split) for p in ins + outs)
    lines.append(f"  {top} {DUT} ({conns});")
    if spec.clock:
        lines += [f"  initial {spec.clock} = 1'b0;", f"  always #5 {spec.clock} = ~{spec.clock};"]
    lines += [f"  initial begin {c.name} = 1'b0; #{c.offset_ns:g}; forever begin {c.name} = ~{c.name}; "
              f"#{c.half_period_ns}; end end" for c in spec.more_clocks]
    lines.append("  initial begin")
    lines += [f"    $readmemh(\"stim_{p.name}.hex\", stim_{p.name});" for p in data]
    if spec.reset:
        lines.append("    $readmemh(\"stim_reset.hex\", stim_reset);")
    lines += [f"    $readmemh(\"stim_reset_{r.name}.hex\", stim_reset_{r.name});" for r in spec.more_resets]
    lines += ["    $dumpfile(\"activity.vcd\");", f"    $dumpvars(0, {TB_TOP}.{DUT});",
              f"    for (k = 0; k < {n}; k = k + 1) begin", "      #1;"]
    lines += [f"      {p.name} = stim_{p.name}[k];" for p in data]
    if spec.reset:
        lines.append(f"      {spec.reset} = stim_reset[k];")
    lines += [f"      {r.name} = stim_reset_{r.name}[k];" for r in spec.more_resets]
    lines += ["      #9;", "    end", f"    $display(\"HH_ACT_DONE_{spec.token}\");", "    $finish;", "  end",
              "endmodule"]
    return "\n".join(lines) + "\n"


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _pin_energy(pin: Pin, load: float, slew: float) -> tuple[float, float]:
    """Mean rise and fall internal energy of one transition of ``pin`` (library energy units)."""
    rise = [ip.rise.lookup(load=load, slew=slew) for ip in pin.internal_power if ip.rise is not None]
    fall = [ip.fall.lookup(load=load, slew=slew) for ip in pin.internal_power if ip.fall is not None]
    return _mean(rise), _mean(fall)


def net_loads(flat: FlatNetlist, lib: Liberty) -> dict[int, float]:
    """Capacitance each net drives, in library units: fan-out input pins plus the output-port load."""
    loads: dict[int, float] = {}
    for _, cell_name, pins in flat.instances:
        cell = lib.cells.get(cell_name)
        if cell is None:
            continue
        for pin_name, net in pins.items():
            pin = cell.pins.get(pin_name)
            if pin is not None and pin.direction == "input":
                loads[net] = loads.get(net, 0.0) + pin.capacitance
    out_load = OUTPUT_LOAD_FANOUT * lib.inverter().inputs()[0].capacitance
    for direction, net in flat.top_ports.values():
        if direction == "output":
            loads[net] = loads.get(net, 0.0) + out_load
    return loads


def energies(flat: FlatNetlist, lib: Liberty,
             toggles: dict[int, list[int]]) -> tuple[float, float, list[HotNet]]:
    """(switching J, internal J, the five nets with the most switching energy)."""
    loads = net_loads(flat, lib)
    v2 = lib.voltage ** 2
    per_net = {n: 0.5 * loads.get(n, 0.0) * lib.cap_unit_f * v2 * (r + f) for n, (r, f) in toggles.items()}
    slew = NOMINAL_SLEW_S / lib.time_unit_s
    internal = 0.0
    for _, cell_name, pins in flat.instances:
        cell: Cell | None = lib.cells.get(cell_name)
        if cell is None:
            continue
        for pin in cell.pins.values():
            net = pins.get(pin.name)
            if net is None or not pin.internal_power or net not in toggles:
                continue
            e_rise, e_fall = _pin_energy(pin, loads.get(net, 0.0), slew)
            rises, falls = toggles[net]
            internal += (rises * e_rise + falls * e_fall) * lib.energy_unit_j
    top = sorted(per_net.items(), key=lambda kv: -kv[1])[:5]
    hot = [HotNet(net=flat.net_names.get(n, str(n)), toggles=sum(toggles[n]), switching_j=e) for n, e in top if e > 0]
    return sum(per_net.values()), internal, hot


def activity_plan(ctx: StageContext, syn: Synthesized, lib: Liberty) -> Plan:
    """Simulate the netlist in the stage folder; turn its toggles into internal, switching and leakage power."""
    iface, vcfg = ctx.design.interface, ctx.design.verification.differential
    models = cell_models(lib)
    token = hashlib.sha256(f"{ctx.cand.digest}:{vcfg.seed}:activity".encode()).hexdigest()[:12]
    spec = TbSpec(ports=[TbPort(p.name, p.dir, p.width) for p in iface.all_ports() if p.dir in ("input", "output")],
                  clock=iface.clock, reset=iface.reset.name if iface.reset else None,
                  reset_active_low=bool(iface.reset and iface.reset.active == "low"),
                  cycles=vcfg.cycles, seed=vcfg.seed, token=token,
                  **clocking(iface, ctx.design.ppa.clock_period_ns))  # every clock and reset, as the gate drives them
    argv = ("iverilog", "-g2012", "-o", "activity.vvp", "-s", TB_TOP, "hh_act_tb.v", ctx.rel(syn.netlist), str(models))
    top_ports = syn.modules[ctx.top].ports if ctx.top in syn.modules else {}
    split = frozenset(p.name for p in spec.ports if p.width > 1 and p.name not in top_ports
                      and f"{p.name}[0]" in top_ports)  # a hierarchical netlist's ports are split per bit
    bench = {**stimulus_files(spec), "hh_act_tb.v": activity_tb(spec, ctx.top, split)}
    res = (yield from call(Invocation("iverilog-activity", argv, readable=(models.parent,), files=bench))).result
    if not res.ok:
        first = (res.stderr or res.stdout).strip().splitlines()
        why = first[0] if first else res.describe()
        raise ToolError(f"gate-level netlist does not compile for activity power: {why}")
    # the waveform is counted and dropped: the waveform of a netlist is rarely worth keeping
    sim = yield from call(Invocation("vvp-activity", ("vvp", "-n", "activity.vvp"), outputs=("activity.vcd",),
                                     consume=True))
    vcd = sim.outputs.get("activity.vcd")
    if not sim.result.ok or f"HH_ACT_DONE_{token}" not in sim.result.stdout or vcd is None:
        raise ToolError(f"gate-level simulation for activity power failed: {sim.result.describe()} (see {ctx.here})")
    flat = flatten(syn.modules, ctx.top)
    leaves = {path for path, _, _ in flat.instances}
    counted = count_toggles(vcd, f"{TB_TOP}.{DUT}", leaves, where=ctx.own("activity.vcd"))
    unknown = [name for name in counted.counts if name not in flat.aliases]
    if unknown:  # the JSON's names are mapped to the Verilog's (``netlist.verilog_names``): they must all meet
        raise ToolError(f"{len(unknown)} signals of the simulated netlist (e.g. {unknown[0]!r}) are not in "
                        f"{PurePosixPath(syn.netlist).with_name(NETLIST_JSON)}: its names and the Verilog's disagree")
    toggles: dict[int, list[int]] = {}
    for name, rf in counted.counts.items():
        net = flat.aliases.get(name)
        if net is not None and net not in toggles:  # aliases of one net carry the same waveform
            toggles[net] = rf
    switching_j, internal_j, hot = energies(flat, lib, toggles)
    seconds = vcfg.cycles * ctx.design.ppa.clock_period_ns * 1e-9
    leakage_w = sum(lib.cells[c].leakage for _, c, _ in flat.instances if c in lib.cells) * lib.leakage_unit_w
    total_toggles = sum(r + f for r, f in toggles.values())
    details = ActivityDetails(
        source="gate-level simulation (Icarus, zero delay) of the mapped netlist",
        stimulus=f"differential vectors: {vcfg.cycles} cycles, seed {vcfg.seed}", cycles=vcfg.cycles,
        nets_toggled=sum(1 for r, f in toggles.values() if r + f), nets_seen=len(toggles),
        nets_in_netlist=len({n for _, _, pins in flat.instances for n in pins.values()}),
        toggles=total_toggles, toggles_per_net_cycle=round(total_toggles / max(1, len(toggles)) / vcfg.cycles, 6),
        hottest_nets=hot, vcd_bytes=len(vcd.encode("utf-8", "surrogateescape")))
    return _result(Power(internal_j / seconds, switching_j / seconds, leakage_w, details), "activity")


def _result(pw: Power, fidelity: str) -> StageResult:
    split = {"internal_mw": pw.internal_w * 1e3, "switching_mw": pw.switching_w * 1e3, "leakage_mw": pw.leakage_w * 1e3}
    total = sum(split.values())
    return StageResult(StageId.POWER, True, f"{total:.6g} mW ({fidelity})",
                       {"fidelity": fidelity, **split, "details": pw.details}, value=pw)


class PowerStage:
    id = StageId.POWER
    inputs = ("synthesis netlist.v", "synthesis netlist.json", "sta vectorless power")
    outputs = ("hh_act_tb.v",)
    config = ("ppa.power", "ppa.input_activity", "ppa.clock_period_ns", "verification.differential", "ppa.liberty")

    def skip_reason(self, ctx: StageContext) -> str | None:
        return None

    def plan(self, ctx: StageContext) -> Plan:
        assert ctx.liberty is not None
        if ctx.power == "activity":
            return (yield from activity_plan(ctx, ctx.value(StageId.SYNTHESIS, Synthesized), ctx.liberty))
        sta = ctx.value(StageId.STA, StaResult)
        details = VectorlessDetails(source="OpenSTA report_power", input_activity=ctx.design.ppa.input_activity)
        return _result(Power(sta.internal_w, sta.switching_w, sta.leakage_w, details), "vectorless")
