"""Replay a solver counterexample in Icarus with the differential bench, before it may refute.

The bench gets the counterexample as its stimulus files: in the reset phase the reset is active and
data inputs hold their declared values (as in the miter), then the solver's inputs per cycle. Outputs
are compared like the miter compares them (golden X don't-care, qualifiers, not in the reset phase).
A difference Icarus shows is the evidence the verdict reports; none means solver and simulator disagree.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Generator
from dataclasses import dataclass

from ..sim.difftb import TbClock, TbPort, TbReset, TbSpec, differential_tb
from ..sim.stimulus import hex_text
from ..stages.model import Invocation, Reply, Request, call
from .cex import Frames
from .miter import MiterSpec

MISMATCH = re.compile(r"HH_MISMATCH_(\w+) cycle=(\d+) port=(\w+) expected=(\S+) got=(\S+)")


@dataclass
class Replay:
    reproduced: bool
    error: str = ""  # the bench did not compile or run
    cycle: int = 0
    port: str = ""
    reference: str = ""
    candidate: str = ""
    timed_out: bool = False  # the wall clock stopped the bench: nothing reproducible about the design


def stimulus(spec: MiterSpec, frames: Frames) -> Frames:
    """The frames as the miter saw them: the reset phase forced, every input present."""
    iface = spec.iface
    out = []
    for k, f in enumerate(frames):
        row = dict(f)
        if k < spec.phase_cycles:
            for p in iface.data_inputs():
                row[p.name] = int(spec.reset_inputs.get(p.name, 0))
            for rst in iface.resets:  # the miter holds every reset during the phase
                row[rst.name] = 0 if rst.active == "low" else 1
        out.append(row)
    return out


def replay(folder: str, spec: MiterSpec, frames: Frames, gold_files: list[str], gold_inc: str,
           gate_files: list[str], gate_inc: str, timeout_s: float) -> Generator[Request, Reply, Replay]:
    """Compile and run the bench in ``folder`` (of the stage folder); file arguments relative to ``folder``."""
    iface = spec.iface
    token = hashlib.sha256(repr(frames).encode()).hexdigest()[:12]
    ports = [TbPort(p.name, p.dir, p.width) for p in iface.all_ports() if p.dir in ("input", "output")]
    # the miter steps every clock together (lockstep clocks only): each further clock rises with the main one
    more_clocks = tuple(TbClock(c.name, 5, 5.0) for c in iface.clocks[1:])
    more_resets = tuple(TbReset(r.name, r.active == "low", 1) for r in iface.resets[1:])
    tb = TbSpec(ports=ports, clock=iface.clock, reset=iface.reset.name if iface.reset else None,
                reset_active_low=bool(iface.reset and iface.reset.active == "low"), cycles=len(frames), seed=0,
                token=token, compare_from=spec.phase_cycles, compare_when=tuple(sorted(spec.compare_when.items())),
                more_clocks=more_clocks, more_resets=more_resets)
    files = {f"stim_{p.name}.hex": hex_text([f.get(p.name, 0) for f in frames], p.width) for p in iface.data_inputs()}
    if iface.reset:
        files["stim_reset.hex"] = hex_text([f.get(iface.reset.name, 0) for f in frames], 1)
    for r in more_resets:
        files[f"stim_reset_{r.name}.hex"] = hex_text([f.get(r.name, 0) for f in frames], 1)
    files["hh_replay_tb.v"] = differential_tb(tb, spec.gate_top, spec.gold_top, spec.gate_params, spec.gold_params)
    argv = ("iverilog", "-g2012", "-s", "hh_diff_tb", "-o", "replay.vvp", f"-I{gold_inc}", f"-I{gate_inc}",
            "hh_replay_tb.v", *gate_files, *gold_files)
    run = yield from call(Invocation("iverilog-replay", argv, files={f"{folder}/{k}": v for k, v in files.items()},
                                     cwd=folder, timeout_s=timeout_s, crash_is_data=True))
    if not run.result.ok:
        return Replay(False, error=f"the replay bench does not compile: {run.result.describe()}",
                      timed_out=run.result.timed_out)
    sim = (yield from call(Invocation("vvp-replay", ("vvp", "-n", "replay.vvp"), cwd=folder,
                                      timeout_s=timeout_s, crash_is_data=True))).result
    if sim.signal_name or sim.timed_out:  # what a crashed or stopped simulator printed is no evidence
        return Replay(False, error=sim.describe(), timed_out=sim.timed_out)
    for m in MISMATCH.finditer(sim.stdout):
        if m.group(1) == token:
            return Replay(True, cycle=int(m.group(2)), port=m.group(3), reference=m.group(4), candidate=m.group(5))
    if f"HH_PASS_{token}" not in sim.stdout:
        return Replay(False, error="the replay simulation did not finish")
    return Replay(False)
