"""Activity-based power: gate-level simulation of the mapped netlist under the design's stimulus.

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
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..candidate import Candidate
from ..config import DesignConfig
from ..errors import ConfigError, ToolError
from ..runner import run_tool
from ..sim.difftb import TbPort, TbSpec, write_stimulus
from .liberty import Cell, Liberty, Pin
from .netlist import FlatNetlist, Module, flatten
from .sta import OUTPUT_LOAD_FANOUT
from .vcd import count_toggles

TB_TOP, DUT = "hh_act_tb", "hh_dut"
NOMINAL_SLEW_S = 0.1e-9


@dataclass(frozen=True)
class ActivityPower:
    internal_w: float
    switching_w: float
    leakage_w: float
    details: dict = field(default_factory=dict)


def cell_models(lib: Liberty) -> Path:
    models = Path(lib.path).with_suffix(".v")
    if not models.is_file():
        raise ConfigError(f"ppa.power: activity needs the cell library's Verilog models at {models} "
                          f"(or use power: vectorless)")
    return models


def activity_tb(spec: TbSpec, top: str) -> str:
    """One instance of ``top`` driven by the stimulus files; timing as in the differential bench."""
    ins = [p for p in spec.ports if p.dir == "input"]
    outs = [p for p in spec.ports if p.dir == "output"]
    data = [p for p in ins if p.name not in (spec.clock, spec.reset)]
    n = spec.cycles
    lines = ["`timescale 1ns/1ps", f"module {TB_TOP};", "  integer k;"]
    lines += [f"  reg [{p.width - 1}:0] {p.name};" for p in ins]
    lines += [f"  wire [{p.width - 1}:0] {p.name};" for p in outs]
    lines += [f"  reg [{p.width - 1}:0] stim_{p.name} [0:{n - 1}];" for p in data]
    if spec.reset:
        lines.append(f"  reg stim_reset [0:{n - 1}];")
    conns = ", ".join(f".{p.name}({p.name})" for p in ins + outs)
    lines.append(f"  {top} {DUT} ({conns});")
    if spec.clock:
        lines += [f"  initial {spec.clock} = 1'b0;", f"  always #5 {spec.clock} = ~{spec.clock};"]
    lines.append("  initial begin")
    lines += [f"    $readmemh(\"stim_{p.name}.hex\", stim_{p.name});" for p in data]
    if spec.reset:
        lines.append("    $readmemh(\"stim_reset.hex\", stim_reset);")
    lines += ["    $dumpfile(\"activity.vcd\");", f"    $dumpvars(0, {TB_TOP}.{DUT});",
              f"    for (k = 0; k < {n}; k = k + 1) begin", "      #1;"]
    lines += [f"      {p.name} = stim_{p.name}[k];" for p in data]
    if spec.reset:
        lines.append(f"      {spec.reset} = stim_reset[k];")
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


def energies(flat: FlatNetlist, lib: Liberty, toggles: dict[int, list[int]]) -> tuple[float, float, list]:
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
    hot = [{"net": flat.net_names.get(n, str(n)), "toggles": sum(toggles[n]), "switching_j": e} for n, e in top if e > 0]
    return sum(per_net.values()), internal, hot


def activity_power(netlist: Path, cand: Candidate, design: DesignConfig, lib: Liberty,
                   modules: dict[str, Module], folder: Path) -> ActivityPower:
    """Simulate ``netlist`` in ``folder`` and turn its toggles into internal, switching and leakage power."""
    t0 = time.monotonic()
    iface, vcfg, lim = design.interface, design.verification.differential, design.limits
    models = cell_models(lib)
    token = hashlib.sha256(f"{cand.digest}:{vcfg.seed}:activity".encode()).hexdigest()[:12]
    spec = TbSpec(ports=[TbPort(p.name, p.dir, p.width) for p in iface.all_ports() if p.dir in ("input", "output")],
                  clock=iface.clock, reset=iface.reset.name if iface.reset else None,
                  reset_active_low=bool(iface.reset and iface.reset.active == "low"),
                  cycles=vcfg.cycles, seed=vcfg.seed, token=token)
    write_stimulus(spec, folder)
    (folder / "hh_act_tb.v").write_text(activity_tb(spec, cand.top), encoding="utf-8")
    res = run_tool(["iverilog", "-g2012", "-o", "activity.vvp", "-s", TB_TOP, "hh_act_tb.v", str(netlist), str(models)],
                   name="iverilog-activity", log_dir=folder, timeout_s=lim.tool_timeout_s, cwd=folder,
                   mem_mb=lim.tool_mem_mb, sandbox=lim.sandbox, readable=[Path(models).resolve().parent,
                                                                          Path(netlist).resolve().parent])
    if not res.ok:
        first = (res.stderr or res.stdout).strip().splitlines()
        raise ToolError(f"gate-level netlist does not compile for activity power: {first[0] if first else res.describe()}")
    sim = run_tool(["vvp", "-n", "activity.vvp"], name="vvp-activity", log_dir=folder, timeout_s=lim.tool_timeout_s,
                   cwd=folder, mem_mb=lim.tool_mem_mb, sandbox=lim.sandbox)
    if not sim.ok or f"HH_ACT_DONE_{token}" not in sim.stdout:
        raise ToolError(f"gate-level simulation for activity power failed: {sim.describe()} (see {folder})")
    flat = flatten(modules, cand.top)
    leaves = {path for path, _, _ in flat.instances}
    counted = count_toggles(folder / "activity.vcd", f"{TB_TOP}.{DUT}", leaves)
    toggles: dict[int, list[int]] = {}
    for name, rf in counted.counts.items():
        net = flat.aliases.get(name)
        if net is not None and net not in toggles:  # aliases of one net carry the same waveform
            toggles[net] = rf
    switching_j, internal_j, hot = energies(flat, lib, toggles)
    seconds = vcfg.cycles * design.ppa.clock_period_ns * 1e-9
    leakage_w = sum(lib.cells[c].leakage for _, c, _ in flat.instances if c in lib.cells) * lib.leakage_unit_w
    vcd_bytes = (folder / "activity.vcd").stat().st_size
    (folder / "activity.vcd").unlink()  # counted; the waveform of a netlist is rarely worth keeping
    total_toggles = sum(r + f for r, f in toggles.values())
    details = {"source": "gate-level simulation (Icarus, zero delay) of the mapped netlist",
               "stimulus": f"differential vectors: {vcfg.cycles} cycles, seed {vcfg.seed}", "cycles": vcfg.cycles,
               "nets_toggled": sum(1 for r, f in toggles.values() if r + f), "nets_seen": len(toggles),
               "nets_in_netlist": len({n for _, _, pins in flat.instances for n in pins.values()}),
               "toggles": total_toggles, "toggles_per_net_cycle": round(total_toggles / max(1, len(toggles)) / vcfg.cycles, 6),
               "hottest_nets": hot, "vcd_bytes": vcd_bytes, "sim_s": round(time.monotonic() - t0, 4)}
    return ActivityPower(internal_w=internal_j / seconds, switching_w=switching_j / seconds, leakage_w=leakage_w,
                         details=details)
