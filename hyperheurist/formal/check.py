"""One equivalence check as a plan: the miter built, the engines run, a counterexample replayed; a ``Verdict``.

Both callers run this: the equivalence gate (candidate against the reference or its parent) and the
rewrite proofs (``rewrite.prove``: a Phase-2 child against its parent, QoR pairs). Like a stage plan it
yields ``Invocation``s and never touches the disk.

Steps: one Yosys run builds the X-aware miter and, from it, the AIGER, where same-named registers the
reset sequence leaves free share their first value (``miter.check_script``, ``inits``); when neither
side can produce X that AIGER cannot model, ABC proves the AIGER (``abc``: ``&cec`` combinational,
``scorr`` + ``pdr`` then ``bmc3`` sequential); otherwise, on request, or where Yosys cannot write the
AIGER, Yosys SAT in 4 states (``yosat``). A solver counterexample refutes only once Icarus reproduces
it (``replay``); one ABC gave that Icarus does not reproduce (a free value Icarus keeps X) goes to the
4-state engine.

Crashes: every invocation of a check is ``crash_is_data``. A tool that dies on a signal says nothing about
equivalence, so its crash can never prove or refute: the next engine that can decide soundly takes over
(SAT when the AIGER writer crashes), else the verdict is inconclusive, naming the crash, and the policy
rejects it. Crashes on the candidate's text are the untrusted design's doing (Yosys 0.23 segfaults in
``write_aiger`` on some mutants), so they are data about the candidate, not a fault of hh's run.
"""

from __future__ import annotations

import json
import posixpath
import re
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

from ..runner import ToolResult
from ..stages.model import Invocation, Reply, Request, call
from . import abc
from .cex import Frames, abc_frames, aiger_inputs, hexv, sat_frames
from .inits import MITER_WRITTEN, TIE_SCRIPT, TIE_TCL
from .miter import (
    AIG_MAP,
    FLAT_IL,
    HIER_IL,
    WRAPPER,
    MiterSpec,
    check_script,
    check_spec,
    wrapper,
    x_sources,
)
from .replay import replay, stimulus
from .verdict import CexCycle, Kind, Verdict
from .yosat import ENGINE as SAT_ENGINE
from .yosat import sat

ERROR = re.compile(r"^(?:(\S+:\d+): )?ERROR: (.*)$", re.MULTILINE)  # Yosys: "[file:line: ]ERROR: what"
CEX_JSON = "counterexample.json"


class CexRow(TypedDict):
    """One cycle of the replayed stimulus, reset included (counterexample.json's ``cycles``)."""

    cycle: int
    phase: str  # "reset" | "run"
    inputs: dict[str, str]  # port -> hex value (the clock left out)


class Difference(TypedDict):
    """The first output that differs in the Icarus replay."""

    cycle: int
    port: str
    reference: str
    candidate: str


class CexFile(TypedDict):
    """counterexample.json: the solver's trace as Icarus replayed it."""

    engine: str
    reset_cycles: int
    cycles: list[CexRow]
    difference: NotRequired[Difference]  # only when the replay reproduced it
MITER_SCRIPT = "hh_miter.ys"
Verdicts = Generator[Request, Reply, Verdict]


def yosys_error(res: ToolResult) -> str:
    """Yosys' own error line (with its ``file:line``), else how the run ended."""
    m = ERROR.search(res.stdout + "\n" + res.stderr)
    if not m:
        return res.describe()
    return f"{m.group(1)}: {m.group(2)}" if m.group(1) else m.group(2)


@dataclass(frozen=True)
class Side:
    """One design of the pair: its files relative to the stage folder, its include folder, its name in messages."""

    files: tuple[str, ...]
    include: str
    name: str

    def seen_from(self, sub: str) -> tuple[list[str], str]:
        """(files, include folder) relative to the subfolder ``sub`` of the stage folder."""
        up = posixpath.relpath(".", sub)
        return [posixpath.join(up, f) for f in self.files], posixpath.join(up, self.include)


@dataclass(frozen=True)
class CheckJob:
    """What to check: the miter spec, the two sides, the files their Yosys run needs, the bounds."""

    spec: MiterSpec
    gold: Side
    gate: Side
    files: Mapping[str, str]  # sources and data files written before the miter run
    depth: int  # cycles after the reset sequence searched when no unbounded proof comes
    timeout_s: float  # the CPU-time budget of the check (engines get shares of it; spent: inconclusive)
    engine: str = "auto"  # "yosys-sat": the 4-state engine only
    miter_timeout_s: float | None = None  # wall clock; None: the backstop of the whole budget
    replay_timeout_s: float | None = None  # wall clock; None: the backstop of the whole budget
    clean: Callable[[str], str] = str  # a tool message as the caller shows it (the gate strips run folders)


@dataclass
class Check:
    """One check's state; ``plan`` yields its tool runs and returns the verdict. After the plan,
    ``miter_failed`` is the Yosys run that could not build the miter (if it could not), and ``files``
    the artifacts to keep beside the logs (the counterexample)."""

    job: CheckJob
    t0: float = field(default_factory=time.monotonic)
    aig_map: str = ""
    miter_failed: ToolResult | None = None
    files: dict[str, str] = field(default_factory=dict)
    cut: list[str] = field(default_factory=list)  # the runs the wall clock stopped before their budget was spent

    @property
    def mode(self) -> str:
        return "sequential" if self.job.spec.iface.sequential else "combinational"

    def share(self, fraction: float) -> float:
        """CPU seconds for one engine: a fixed share of the budget, so that what an engine may spend does
        not depend on how long the runs before it took on this machine."""
        return max(1.0, self.job.timeout_s * fraction)

    def note(self, run: str, cut: bool) -> None:
        """Remember ``run`` if the wall clock stopped it before its budget was spent."""
        if cut:
            self.cut.append(run)

    def verdict(self, kind: Kind, engine: str, reason: str = "", depth: int | None = None) -> Verdict:
        """A proof and a replayed difference stand whatever stopped the other runs; "bounded" and
        "inconclusive" after a run the wall clock cut say only that this machine was busy: marked ``cut``."""
        v = Verdict(kind, engine, self.mode, reason, depth)
        v.wall_s = time.monotonic() - self.t0
        if kind in ("bounded", "inconclusive") and self.cut:
            v.cut = ", ".join(dict.fromkeys(self.cut))
        return v

    def ports(self) -> dict[str, int]:
        return {p.name: p.width for p in self.job.spec.iface.all_ports() if p.dir == "input"}

    def plan(self) -> Verdicts:
        """The miter and the AIGER in one Yosys run, then the engines."""
        job = self.job
        check_spec(job.spec)
        aiger = job.engine != "yosys-sat"
        script = check_script(list(job.gold.files), job.gold.include, list(job.gate.files), job.gate.include, aiger)
        timeout = job.miter_timeout_s or abc.wall_backstop(job.timeout_s)
        run = yield from call(Invocation("yosys-miter", ("yosys", "-q", "-s", MITER_SCRIPT), crash_is_data=True,
                                         files={**job.files, WRAPPER: wrapper(job.spec), MITER_SCRIPT: script,
                                                **({TIE_SCRIPT: TIE_TCL} if aiger else {})},
                                         outputs=(HIER_IL, FLAT_IL, AIG_MAP) if aiger else (HIER_IL, FLAT_IL),
                                         timeout_s=timeout))
        if FLAT_IL not in run.outputs or not (run.result.ok or MITER_WRITTEN in run.result.stdout):
            self.miter_failed = run.result
            if run.result.timed_out:
                self.note("yosys-miter", True)
                return self.verdict("inconclusive", "yosys", f"building the miter took over {timeout:g} s")
            why = job.clean(yosys_error(run.result))
            return self.verdict("inconclusive", "yosys", f"cannot build the miter: {why}")
        if not aiger:
            return (yield from self.with_sat(""))
        xs = x_sources(run.outputs.get(HIER_IL, ""))
        if xs:
            return (yield from self.with_sat(f"{job.gate.name} X sources: " + ", ".join(xs[:3])))
        if not run.result.ok or AIG_MAP not in run.outputs:  # Yosys 0.23 can crash on odd netlists
            return (yield from self.with_sat(f"no AIGER: {job.clean(yosys_error(run.result))}"))
        self.aig_map = run.outputs[AIG_MAP]
        v = yield from self.with_abc()
        if v.kind == "inconclusive" and "disagree" in v.reason and not self.cut:
            # a free start value or X the solver chose that Icarus keeps X: ask the 4-state engine
            v = yield from self.with_sat(f"ABC: {v.reason}")
        return v

    def with_abc(self) -> Verdicts:
        if self.mode == "combinational":
            out = yield from abc.combinational(self.share(1.0))
            self.note(out.engine, out.cut)
            if out.status == "proved":
                return self.verdict("proven", out.engine)
            if out.status == "cex":
                return (yield from self.refute(out.engine, self.abc_frames(out.cex), None))
            return self.verdict("inconclusive", out.engine, out.detail)
        r, depth = self.job.spec.phase_cycles, self.job.depth
        # a shallow difference first: bounded by conflicts, it costs ~0.2 s where the proof would spend its budget
        q = yield from abc.bmc(r + depth, self.share(0.2), abc.QUICK_BMC_CONFLICTS, "abc-bmc3-quick")
        self.note(q.engine, q.cut)
        if q.status == "cex":
            return (yield from self.refute(q.engine, self.abc_frames(q.cex), depth if q.frames < r + depth else None))
        p = yield from abc.prove(self.share(0.6))
        self.note(p.engine, p.cut)
        if p.status == "proved":
            return self.verdict("proven", p.engine)
        if p.status != "cex" and q.status == "undecided" and q.frames >= r + depth:
            b = q  # the quick run already searched every frame
        else:
            frames = max(r + depth, p.frames + 1) if p.status == "cex" else r + depth
            b = yield from abc.bmc(frames, self.share(0.4))
            self.note(b.engine, b.cut)
        if b.status == "cex":
            return (yield from self.refute(b.engine, self.abc_frames(b.cex), depth if b.frames < r + depth else None))
        engines = f"{p.engine}, {b.engine}"
        if p.status == "cex":
            return self.verdict("inconclusive", engines,
                                f"PDR found a difference in frame {p.frames} that BMC did not reproduce ({b.detail})")
        reached = max(0, min(b.frames, r + depth) - r)
        if reached >= depth:
            return self.verdict("bounded", engines, f"unbounded proof: {p.detail}", reached)
        return self.verdict("inconclusive", engines, f"{p.detail}; bmc3: {b.detail}")

    def with_sat(self, why: str) -> Verdicts:
        depth = self.job.depth
        steps = None if self.mode == "combinational" else self.job.spec.phase_cycles + depth
        out = yield from sat(steps, self.share(1.0))
        self.note(SAT_ENGINE, out.cut)
        engine = SAT_ENGINE + (f" ({why})" if why else "")
        if out.status == "proved":
            if steps is None:
                return self.verdict("proven", engine)
            return self.verdict("bounded", engine, "", depth)
        if out.status == "cex":
            return (yield from self.refute(engine, sat_frames(out.text, self.ports()), depth if steps else None))
        return self.verdict("inconclusive", engine, out.detail)

    def abc_frames(self, cex: str) -> Frames:
        return abc_frames(cex, aiger_inputs(self.aig_map), self.ports())

    def refute(self, engine: str, frames: Frames, depth: int | None) -> Verdicts:
        """Replay in Icarus; only a reproduced difference refutes. The stimulus and what Icarus showed go
        to ``counterexample.json`` either way."""
        job, spec = self.job, self.job.spec
        frames = stimulus(spec, frames)
        gold_files, gold_inc = job.gold.seen_from("replay")
        gate_files, gate_inc = job.gate.seen_from("replay")
        rep = yield from replay("replay", spec, frames, gold_files, gold_inc, gate_files, gate_inc,
                                job.replay_timeout_s or abc.wall_backstop(job.timeout_s))
        self.note("icarus replay", rep.timed_out)
        if rep.reproduced:
            frames = frames[: rep.cycle + 1]  # what follows the first difference is not needed to see it
        r, clock = spec.phase_cycles, spec.iface.clock
        rows = [CexRow(cycle=k, phase="reset" if k < r else "run",
                       inputs={p: hexv(v) for p, v in f.items() if p != clock}) for k, f in enumerate(frames)]
        doc = CexFile(engine=engine, reset_cycles=r, cycles=rows)
        if rep.reproduced:
            doc["difference"] = Difference(cycle=rep.cycle, port=rep.port, reference=rep.reference,
                                           candidate=rep.candidate)
        self.files[CEX_JSON] = json.dumps(doc, indent=1) + "\n"
        if not rep.reproduced:
            why = rep.error or "Icarus shows no difference on the solver's counterexample"
            v = self.verdict("inconclusive", engine, f"solver and simulator disagree ({why})", depth)
        else:
            diff = f"output `{rep.port}` {job.gold.name} {rep.reference}, {job.gate.name} {rep.candidate}"
            if self.mode == "combinational":
                ins = " ".join(f"{p}=0x{v}" for p, v in rows[0]["inputs"].items())
                v = self.verdict("refuted", engine, f"inputs {ins}: {diff}", depth)
            else:
                run_rows = [row for row in rows if row["phase"] == "run"]
                hist = "; ".join(" ".join(f"{p}=0x{v}" for p, v in row["inputs"].items()) for row in run_rows)
                v = self.verdict("refuted", engine, f"cycle {rep.cycle - r} after the {r}-cycle reset: {diff} "
                                 f"(inputs per cycle after reset, full list in {CEX_JSON}: {hist})", depth)
        v.counterexample = [CexCycle(cycle=row["cycle"] - r, inputs=row["inputs"]) for row in rows
                            if row["phase"] == "run"]
        v.files = {"counterexample": CEX_JSON, "replay": "replay/hh_replay_tb.v"}
        return v
