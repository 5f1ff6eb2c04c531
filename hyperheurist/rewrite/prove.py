"""Proving a rewrite equal to its parent with the equivalence engines of ``hyperheurist.formal``.

The same miter and engines as the equivalence gate: an X-aware wrapper (a bit the parent leaves X
is a don't-care, an X the child adds is a difference), a reset sequence after which both sides run
from the state it leaves (registers it does not set start free, with same-named registers of the two
sides sharing their first value, ``formal.inits``), then ABC: ``&cec`` for combinational designs,
``scorr`` + ``pdr`` for an unbounded sequential proof and ``bmc3`` for a counterexample or a bound.
Yosys SAT in 4-state mode takes over where a side can produce X that AIGER cannot model, or where
Yosys cannot write the AIGER. A counterexample refutes only once Icarus reproduces it.

The answer is a ``formal.verdict.Verdict`` (proven, bounded, refuted, inconclusive). A rewrite is
accepted only when it is ``proven``: "no difference within N cycles" is recorded, never accepted.
``proof_plan`` is pure (it yields the tool invocations, as the engines do); ``prove_rewrite`` runs
one in a folder.
"""

from __future__ import annotations

import re
import time
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path

from ..config import Interface
from ..formal import abc
from ..formal.cex import Frames, abc_frames, aiger_inputs, hexv, sat_frames
from ..formal.inits import tie_inits
from ..formal.miter import (
    AIG_MAP,
    FLAT_IL,
    HIER_IL,
    TIED_IL,
    WRAPPER,
    MiterSpec,
    aiger_script,
    check_spec,
    wrapper,
    x_sources,
    yosys_script,
)
from ..formal.replay import replay, stimulus
from ..formal.verdict import Kind, Verdict
from ..formal.yosat import ENGINE as SAT_ENGINE
from ..formal.yosat import sat
from ..hdl.rename import declared_names, prefix_names
from ..runner import ToolResult, run_tool
from ..stages.model import Invocation, Reply, Request, ToolRun, call

PREFIX = "hhref_"  # the parent's modules, renamed so they sit beside the child's in one miter and one bench
PROVE_MEM_MB = 4096  # the parent/child pairs are small: this is a backstop, not a budget
GOLD, GATE = "parent/parent.v", "child/child.v"
ERROR = re.compile(r"^(?:\S+:\d+: )?ERROR: (.*)$", re.MULTILINE)
Plan = Generator[Request, Reply, Verdict]


@dataclass(frozen=True)
class ProofTask:
    """A child design to prove against its parent: sources as text, the top module, the interface
    (clock, reset and ports as in design.yaml) and the reset sequence of the miter."""

    parent: str
    child: str
    top: str
    iface: Interface
    depth: int = 12  # cycles after the reset sequence that bmc3 searches when no unbounded proof comes
    timeout_s: float = 120.0  # one cap on the whole check (then inconclusive)
    reset_cycles: int = 2
    reset_inputs: dict[str, int] = field(default_factory=dict)
    compare_when: dict[str, str] = field(default_factory=dict)


def accepted(v: Verdict) -> bool:
    """A rewrite stands only on a real proof."""
    return v.kind == "proven"


class _Proof:
    """The steps of one proof; ``plan`` yields its tool runs."""

    def __init__(self, task: ProofTask) -> None:
        self.task = task
        self.mode = "sequential" if task.iface.sequential else "combinational"
        self.spec = MiterSpec(iface=task.iface, gold_top=PREFIX + task.top, gate_top=task.top,
                              reset_cycles=task.reset_cycles, reset_inputs=dict(task.reset_inputs),
                              compare_when=dict(task.compare_when))
        self.inputs = {p.name: p.width for p in task.iface.all_ports() if p.dir == "input"}
        self.aig_map = ""
        self.t0 = time.monotonic()

    def left(self) -> float:
        return max(1.0, self.task.timeout_s - (time.monotonic() - self.t0))

    def verdict(self, kind: Kind, engine: str, reason: str = "", depth: int | None = None) -> Verdict:
        v = Verdict(kind, engine, self.mode, reason, depth)
        v.golden = "its parent"
        v.wall_s = time.monotonic() - self.t0
        return v

    def plan(self) -> Plan:
        check_spec(self.spec)
        parent = prefix_names(self.task.parent, declared_names(self.task.parent), PREFIX)
        files = {GOLD: parent, GATE: self.task.child, WRAPPER: wrapper(self.spec),
                 "hh_miter.ys": yosys_script([GOLD], "parent", [GATE], "child")}
        run = yield from call(Invocation("yosys-miter", ("yosys", "-q", "-s", "hh_miter.ys"), files=files,
                                         outputs=(HIER_IL, FLAT_IL), timeout_s=self.left()))
        if not run.result.ok or FLAT_IL not in run.outputs:
            return self.verdict("inconclusive", "yosys", f"cannot build the miter: {_yosys_error(run.result)}")
        xs = x_sources(run.outputs.get(HIER_IL, ""))
        if xs:
            return (yield from self.with_sat("child X sources: " + ", ".join(xs[:3])))
        tied, _pairs = tie_inits(run.outputs[FLAT_IL])
        aig = yield from call(Invocation("yosys-aiger", ("yosys", "-q", "-s", "hh_aiger.ys"),
                                         files={TIED_IL: tied, "hh_aiger.ys": aiger_script()}, outputs=(AIG_MAP,),
                                         timeout_s=self.left()))
        if not aig.result.ok or AIG_MAP not in aig.outputs:  # Yosys 0.23 can crash on odd netlists: SAT reads RTLIL
            return (yield from self.with_sat(f"no AIGER: {_yosys_error(aig.result)}"))
        self.aig_map = aig.outputs[AIG_MAP]
        v = yield from self.with_abc()
        if v.kind == "inconclusive" and "disagree" in v.reason and self.left() > 2:
            # a free value Icarus keeps X: the 4-state engine decides
            return (yield from self.with_sat(f"ABC: {v.reason}"))
        return v

    def with_abc(self) -> Plan:
        if self.mode == "combinational":
            out = yield from abc.combinational(self.left())
            if out.status == "proved":
                return self.verdict("proven", out.engine)
            if out.status == "cex":
                return (yield from self.refute(out.engine, self._abc_frames(out.cex), None))
            return self.verdict("inconclusive", out.engine, out.detail)
        r, depth = self.spec.phase_cycles, self.task.depth
        p = yield from abc.prove(self.left() * 0.6)
        if p.status == "proved":
            return self.verdict("proven", p.engine)
        b = yield from abc.bmc(max(r + depth, p.frames + 1) if p.status == "cex" else r + depth, self.left())
        engines = f"{p.engine}, {b.engine}"
        if b.status == "cex":
            return (yield from self.refute(b.engine, self._abc_frames(b.cex), depth))
        if p.status == "cex":
            return self.verdict("inconclusive", engines,
                                f"PDR found a difference in frame {p.frames} that BMC did not reproduce ({b.detail})")
        reached = max(0, min(b.frames, r + depth) - r)
        if reached >= depth:
            return self.verdict("bounded", engines, f"unbounded proof: {p.detail}", reached)
        return self.verdict("inconclusive", engines, f"{p.detail}; bmc3: {b.detail}")

    def with_sat(self, why: str) -> Plan:
        steps = None if self.mode == "combinational" else self.spec.phase_cycles + self.task.depth
        depth = None if steps is None else self.task.depth
        out = yield from sat(steps, self.left())
        engine = f"{SAT_ENGINE} ({why})"
        if out.status == "proved":
            return self.verdict("proven" if steps is None else "bounded", engine, "", depth)
        if out.status == "cex":
            return (yield from self.refute(engine, sat_frames(out.text, self.inputs), depth))
        return self.verdict("inconclusive", engine, out.detail)

    def _abc_frames(self, cex: str) -> Frames:
        return abc_frames(cex, aiger_inputs(self.aig_map), self.inputs)

    def refute(self, engine: str, frames: Frames, depth: int | None) -> Plan:
        """Replay the counterexample in Icarus; only a reproduced difference refutes."""
        frames = stimulus(self.spec, frames)
        rep = yield from replay("replay", self.spec, frames, [f"../{GOLD}"], "../parent", [f"../{GATE}"],
                                "../child", self.left())
        if not rep.reproduced:
            why = rep.error or "Icarus shows no difference on the solver's counterexample"
            return self.verdict("inconclusive", engine, f"solver and simulator disagree ({why})", depth)
        r, clock = self.spec.phase_cycles, self.task.iface.clock
        rows = [{p: hexv(v) for p, v in f.items() if p != clock} for f in frames[r:rep.cycle + 1]]
        diff = f"output `{rep.port}` parent {rep.reference}, child {rep.candidate}"
        ins = "; ".join(" ".join(f"{p}=0x{v}" for p, v in row.items()) for row in rows)
        where = "inputs" if self.mode == "combinational" else f"cycle {rep.cycle - r} after reset, inputs per cycle"
        v = self.verdict("refuted", engine, f"{where} {ins}: {diff}", depth)
        v.counterexample = [{"cycle": k, "inputs": row} for k, row in enumerate(rows)]
        v.files = {"replay": "replay/hh_replay_tb.v"}
        return v


def _yosys_error(res: ToolResult) -> str:
    m = ERROR.search(res.stdout + "\n" + res.stderr)
    return m.group(1).strip() if m else res.describe()


def proof_plan(task: ProofTask) -> Plan:
    """The proof of ``task`` as a plan of tool invocations (see the module docstring)."""
    return _Proof(task).plan()


def _serve(inv: Invocation, folder: Path) -> ToolRun:
    """One invocation in ``folder``: its files written, its outputs read back."""
    for name, text in inv.files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    for name in inv.outputs:
        (folder / name).unlink(missing_ok=True)
    cwd = folder / inv.cwd
    cwd.mkdir(parents=True, exist_ok=True)
    res = run_tool(list(inv.argv), name=inv.name, log_dir=folder, timeout_s=inv.timeout_s or 60.0, cwd=cwd,
                   mem_mb=PROVE_MEM_MB, readable=[folder, *inv.readable])
    outputs = {n: (folder / n).read_text(encoding="utf-8", errors="replace") for n in inv.outputs
               if (folder / n).is_file()}
    return ToolRun(res, outputs)


def prove_rewrite(task: ProofTask, folder: Path) -> Verdict:
    """Prove ``task.child`` equal to ``task.parent``; the tools' files and logs go to ``folder``."""
    folder = Path(folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    plan = proof_plan(task)
    try:
        request = next(plan)
        while True:
            if not isinstance(request, Invocation):
                raise TypeError(f"a proof runs tools, not {type(request).__name__}")
            request = plan.send(_serve(request, folder))
    except StopIteration as stop:
        verdict: Verdict = stop.value
    return verdict
