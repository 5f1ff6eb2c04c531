"""Sequential invariants at bit level: register bits constant, or equal (or inverted) to another register's
bit, in every state reachable after the reset sequence of the equivalence check.

Candidates come from the design's own semantics, not from its text: a harness (``hh_obs``) exposes the
registers asked about behind the reset sequence (``invariants.frame``), Yosys writes it as an ASCII AIGER,
and ``aag.simulate`` runs it from reset for many cycles in many random runs at once (resets held inactive
after the sequence, data inputs random). A bit that never changed is claimed constant; bits whose
histories are identical (or complementary) are claimed equal to the first of them, its class's
representative (which is then never claimed about, so a rewrite keeps it). Simulation only filters: the
claims go to induction in one batch (``invariants.plan``, ABC PDR), and only the proven ones come back.
The evaluation proves every child built from them against its parent all the same.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path

from ..config import Interface, Limits
from ..stages.model import Invocation, Reply, Request, call
from . import invariants
from .aag import cycles_for, parse_aag, parse_map, simulate
from .abc import wall_backstop
from .invariants import DUT, NAME, Claim, InvariantJob

OBS, OBS_SCRIPT, OBS_AAG, OBS_AIM = "hh_obs.v", "hh_obs.ys", "hh_obs.aag", "hh_obs.aim"
MAX_BITS = 1024  # register bits observed at all
MAX_CLAIMS = 160  # claims sent to induction in one batch
LANES = 64


@dataclass(frozen=True)
class BitJob:
    """The design (files as text), its top, interface and reset sequence, the registers asked about (name,
    width; bit 0 the least significant) and the induction budget."""

    files: dict[str, str]
    top: str
    iface: Interface
    registers: tuple[tuple[str, int], ...]
    reset_cycles: int = 2
    reset_inputs: dict[str, int] = field(default_factory=dict)
    cpu_s: float = 10.0


def observable(job: BitJob) -> bool:
    """A clocked design with a reset, plain register names and a bounded number of bits."""
    iface = job.iface
    return bool(job.registers) and iface.sequential and iface.reset is not None and iface.lockstep_clocks \
        and all(NAME.match(n) and w >= 1 for n, w in job.registers) \
        and sum(w for _, w in job.registers) <= MAX_BITS


def observe_harness(job: BitJob) -> str:
    """The module ``hh_obs``: the reset sequence around the top, one output ``hh_r<j>`` per register."""
    outs = [f"output wire [{w - 1}:0] hh_r{j}" for j, (_, w) in enumerate(job.registers)]
    lines = invariants.frame(job.iface, job.top, job.reset_cycles, job.reset_inputs, "hh_obs", outs)
    return "\n".join([*lines, "endmodule"]) + "\n"


def observe_script(job: BitJob) -> str:
    """Yosys: the harness flattened, each register tied to its output, the ASCII AIGER and its map."""
    ties = [f"connect -nounset -set hh_r{j} {DUT}.{name}" for j, (name, _) in enumerate(job.registers)]
    return invariants.prepare(job.files, OBS, "hh_obs", ties,
                              f"write_aiger -ascii -zinit -map {OBS_AIM} {OBS_AAG}")


def signatures(job: BitJob, aag: str, aim: str) -> tuple[dict[tuple[str, int], int], int] | None:
    """Each register bit's history from reset, and the history of a bit always 1 (None: the graph cannot be
    simulated). A register whose bits were still changing for the first time in the second half of the
    run is left out: its behaviour had not settled (a counter wider than the run is long), so a bit seen
    constant there may merely not have been reached yet, and induction would spend its budget refuting it."""
    aig = parse_aag(aag)
    if aig is None:
        return None
    ins, outs = parse_map(aim)
    inactive = {r.name: (1 << LANES) - 1 if r.active == "low" else 0 for r in job.iface.resets}

    def drive_(k: int, _t: int) -> int | None:
        name = ins.get(k, ("", 0))[0]
        return inactive.get(name)  # resets stay inactive after the sequence (the harness holds them in it)

    run = simulate(aig, drive_, cycles_for(aig) + job.reset_cycles, job.reset_cycles, LANES)
    if run is None:
        return None
    out: dict[tuple[str, int], int] = {}
    for j, (name, width) in enumerate(job.registers):
        seen = [o for b in range(width) if (o := outs.get((f"hh_r{j}", b))) is not None and o < len(run.signatures)]
        if len(seen) != width or any((run.first_change[o] or 0) > run.samples // 2 for o in seen):
            continue
        for b, o in enumerate(seen):
            out[(name, b)] = run.signatures[o]
    return out, (1 << (run.samples * LANES)) - 1


def candidates(job: BitJob, sigs: dict[tuple[str, int], int], full: int) -> list[Claim]:
    """Constant bits first, then each bit equal or inverted to its class's representative (the first bit of
    the class in register order), at most ``MAX_CLAIMS``."""
    width = dict(job.registers)
    consts: list[Claim] = []
    equal: list[Claim] = []
    reps: dict[int, tuple[str, int, bool]] = {}
    for name, w in job.registers:
        for b in range(w):
            s = sigs.get((name, b))
            if s is None:
                continue
            if s in (0, full):
                consts.append(Claim(name, w, value=int(s == full), bit=b))
                continue
            flip = bool(s & 1)
            key = s ^ full if flip else s
            if key not in reps:
                reps[key] = (name, b, flip)
                continue
            rname, rb, rflip = reps[key]
            equal.append(Claim(name, w, other=rname, bit=b, other_bit=rb, other_width=width[rname],
                               inverted=flip != rflip))
    return (consts + equal)[:MAX_CLAIMS]


def plan(job: BitJob) -> Generator[Request, Reply, tuple[Claim, ...]]:
    """The bit claims proven on the design (empty when nothing could be observed or decided)."""
    if not observable(job):
        return ()
    files = {**job.files, OBS: observe_harness(job), OBS_SCRIPT: observe_script(job)}
    run = yield from call(Invocation("yosys-observe", ("yosys", "-q", "-s", OBS_SCRIPT), files=files,
                                     outputs=(OBS_AIM, OBS_AAG), timeout_s=wall_backstop(job.cpu_s),
                                     crash_is_data=True))
    if not run.result.ok or OBS_AIM not in run.outputs or OBS_AAG not in run.outputs:
        return ()
    seen = signatures(job, run.outputs[OBS_AAG], run.outputs[OBS_AIM])
    if seen is None:
        return ()
    found = tuple(candidates(job, *seen))
    if not found:
        return ()
    inv = InvariantJob(job.files, job.top, job.iface, found, job.reset_cycles, job.reset_inputs, job.cpu_s)
    proven = yield from invariants.plan(inv)
    return tuple(found[k] for k in sorted(proven))


def find_bits(job: BitJob, limits: Limits | None = None, folder: Path | None = None) -> tuple[Claim, ...]:
    """Run ``plan`` in ``folder`` (a fresh temporary folder by default) under ``limits`` (the defaults when
    None): the proven bit claims."""
    if not observable(job):
        return ()
    return invariants.run_plan(plan(job), limits or Limits(), folder, "hh-bits-", "a bit invariant search")
