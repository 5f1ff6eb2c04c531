"""Generated Verilog testbenches driven by ``stimulus`` vectors from $readmemh files.

``differential_tb``: the candidate and a golden instance side by side, the same inputs, every
output compared every cycle (4-state: an X or Z on the candidate where the golden is 0/1 is a
mismatch; golden X bits are don't-care), stopping at the first mismatch.

Timing per cycle k (10 ns): inputs and reset change at 10k+1, outputs are compared at 10k+4, the
clock rises at 10k+5. An asynchronous reset therefore takes effect before the next edge, which
tells an async reset from a sync one. Further clocks (``more_clocks``) run with their own half period:
a synchronous one rises with the main clock; an asynchronous one is offset by a fraction of a
nanosecond, so that none of its edges meets an input change, a comparison or another clock's edge.
Further resets follow their own schedule, held long enough for their clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypedDict

from ..config import Interface
from .stimulus import StimPort, hex_text, reset_schedule, vectors


@dataclass(frozen=True)
class TbPort:
    name: str
    dir: str  # "input" | "output"
    width: int


@dataclass(frozen=True)
class TbClock:
    name: str
    half_period_ns: int
    offset_ns: float  # its first rising edge: 5 (the main clock's) for a synchronous clock, else off the bench's events


@dataclass(frozen=True)
class TbReset:
    name: str
    active_low: bool
    hold: int  # cycles (of the main clock) each assertion lasts


@dataclass(frozen=True)
class TbSpec:
    ports: list[TbPort]
    clock: str | None
    reset: str | None
    reset_active_low: bool
    cycles: int
    seed: int
    token: str  # pass/fail markers carry it, so RTL cannot print a fake verdict
    compare_from: int = 0  # cycles before this are not compared (the formal replay's reset phase)
    compare_when: tuple[tuple[str, str], ...] = ()  # (output, 1-bit output): compared only while the golden's is 1
    reset_hold: int = 1  # cycles each assertion of ``reset`` lasts
    more_clocks: tuple[TbClock, ...] = ()  # clocks of further domains
    more_resets: tuple[TbReset, ...] = ()
    dut_x_ok: bool = False  # an X/Z bit of the candidate is no mismatch (a netlist without the RTL's power-on values)

    def special(self) -> set[str]:
        """Clock and reset inputs: driven by the bench's own schedules, not by stimulus vectors."""
        names = {n for n in (self.clock, self.reset) if n}
        return names | {c.name for c in self.more_clocks} | {r.name for r in self.more_resets}


def _decl(width: int) -> str:
    return f"[{width - 1}:0] "  # also for 1 bit: the checker selects bits


def _params(params: dict[str, str]) -> str:
    return "#(" + ", ".join(f".{k}({v})" for k, v in params.items()) + ") " if params else ""


def stimulus_files(spec: TbSpec) -> dict[str, str]:
    """The $readmemh files of the seeded vectors: ``stim_<port>.hex`` per data input, ``stim_reset.hex``."""
    data = [p for p in spec.ports if p.dir == "input" and p.name not in spec.special()]
    vecs = vectors([StimPort(p.name, p.width) for p in data], spec.cycles, spec.seed)
    out = {f"stim_{p.name}.hex": hex_text([v[p.name] for v in vecs], p.width) for p in data}
    resets = [("stim_reset.hex", spec.reset_active_low, spec.reset_hold, spec.seed)] if spec.reset else []
    resets += [(f"stim_reset_{r.name}.hex", r.active_low, r.hold, spec.seed + i)
               for i, r in enumerate(spec.more_resets, start=1)]
    for name, low, hold, seed in resets:
        active = 0 if low else 1
        out[name] = hex_text([active if r else 1 - active for r in reset_schedule(spec.cycles, seed, hold)], 1)
    return out


def differential_tb(spec: TbSpec, dut: str, gold: str, dut_params: dict[str, str],
                    gold_params: dict[str, str]) -> str:
    ins = [p for p in spec.ports if p.dir == "input"]
    outs = [p for p in spec.ports if p.dir == "output"]
    data = [p for p in ins if p.name not in spec.special()]
    clocks = {c for c in (spec.clock,) if c} | {c.name for c in spec.more_clocks}
    n = spec.cycles
    lines = ["`timescale 1ns/1ps", "module hh_diff_tb;", "  integer k, i;", "  reg bad;"]
    for p in ins:
        lines.append(f"  reg {_decl(p.width)}{p.name};")
    for p in outs:
        lines.append(f"  wire {_decl(p.width)}dut_{p.name}, gold_{p.name};")
    for p in data:
        lines.append(f"  reg {_decl(p.width)}stim_{p.name} [0:{n - 1}];")
    if spec.reset:
        lines.append(f"  reg stim_reset [0:{n - 1}];")
    for r in spec.more_resets:
        lines.append(f"  reg stim_reset_{r.name} [0:{n - 1}];")

    def conns(side: str) -> str:
        items = [f".{p.name}({p.name})" for p in ins] + [f".{p.name}({side}_{p.name})" for p in outs]
        return ", ".join(items)

    lines.append(f"  {dut} {_params(dut_params)}hh_dut ({conns('dut')});")
    lines.append(f"  {gold} {_params(gold_params)}hh_gold ({conns('gold')});")
    if spec.clock:
        lines.append(f"  initial {spec.clock} = 1'b0;")
        lines.append(f"  always #5 {spec.clock} = ~{spec.clock};")
    for c in spec.more_clocks:
        lines.append(f"  initial begin {c.name} = 1'b0; #{c.offset_ns:g}; forever begin {c.name} = ~{c.name}; "
                     f"#{c.half_period_ns}; end end")
    lines.append("  initial begin")
    for p in data:
        lines.append(f"    $readmemh(\"stim_{p.name}.hex\", stim_{p.name});")
    if spec.reset:
        lines.append("    $readmemh(\"stim_reset.hex\", stim_reset);")
    for r in spec.more_resets:
        lines.append(f"    $readmemh(\"stim_reset_{r.name}.hex\", stim_reset_{r.name});")
    lines.append(f"    for (k = 0; k < {n}; k = k + 1) begin")
    lines.append("      #1;")
    for p in data:
        lines.append(f"      {p.name} = stim_{p.name}[k];")
    if spec.reset:
        lines.append(f"      {spec.reset} = stim_reset[k];")
    for r in spec.more_resets:
        lines.append(f"      {r.name} = stim_reset_{r.name}[k];")
    lines.append("      #3;")
    shown = " ".join(f"{p.name}=%h" for p in ins if p.name not in clocks)
    shown_args = "".join(f", {p.name}" for p in ins if p.name not in clocks)
    qualified = dict(spec.compare_when)
    for p in outs:
        lines.append("      bad = 1'b0;")
        lines.append(f"      for (i = 0; i < {p.width}; i = i + 1)")
        known = f" && (dut_{p.name}[i] === 1'b0 || dut_{p.name}[i] === 1'b1)" if spec.dut_x_ok else ""
        lines.append(f"        if ((gold_{p.name}[i] === 1'b0 || gold_{p.name}[i] === 1'b1){known} "
                     f"&& dut_{p.name}[i] !== gold_{p.name}[i]) bad = 1'b1;")
        if spec.compare_from:
            lines.append(f"      if (k < {spec.compare_from}) bad = 1'b0;")
        if p.name in qualified:
            lines.append(f"      if (gold_{qualified[p.name]} !== 1'b1) bad = 1'b0;")
        lines.append("      if (bad) begin")
        lines.append(f"        $display(\"HH_MISMATCH_{spec.token} cycle=%0d port={p.name} "
                     f"expected={p.width}'h%h got={p.width}'h%h inputs: {shown}\", "
                     f"k, gold_{p.name}, dut_{p.name}{shown_args});")
        lines.append("        $finish;")
        lines.append("      end")
    lines.append("      #6;")
    lines.append("    end")
    lines.append(f"    $display(\"HH_PASS_{spec.token} cycles=%0d\", {n});")
    lines.append("    $finish;")
    lines.append("  end")
    lines.append("endmodule")
    return "\n".join(lines) + "\n"


class Clocking(TypedDict):
    reset_hold: int
    more_clocks: tuple[TbClock, ...]
    more_resets: tuple[TbReset, ...]


def clocking(iface: Interface, default_period_ns: float) -> Clocking:
    """The bench's further clocks and resets. The main clock's cycle is the bench's 10 ns; another clock
    keeps its period's ratio to it (to the nanosecond) and rises with it when the clocks are declared
    synchronous; a reset is held for a cycle of its own clock."""
    periods = {c.domain_name: c.period_ns or default_period_ns for c in iface.clocks}
    main = periods[iface.clocks[0].domain_name] if iface.clocks else default_period_ns

    def hold(domain: str | None) -> int:
        return max(1, math.ceil(periods[iface.domain_clock(domain).domain_name] / main - 1e-9))

    more_clocks = tuple(TbClock(c.name, max(1, round(5 * periods[c.domain_name] / main)),
                                5.0 if iface.synchronous_clocks else 0.1 * i + 0.05)
                        for i, c in enumerate(iface.clocks[1:], start=1))
    resets = [(r, hold(r.domain)) for r in iface.resets]
    return {"reset_hold": resets[0][1] if resets else 1, "more_clocks": more_clocks,
            "more_resets": tuple(TbReset(r.name, r.active == "low", h) for r, h in resets[1:])}
