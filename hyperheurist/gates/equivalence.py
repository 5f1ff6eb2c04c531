"""Gate 5, equivalence: a formal check of the candidate against the golden side (``hyperheurist.formal``).

One verdict of four (proven, bounded, refuted, inconclusive; see ``formal.verdict``), recorded with
its engine and mode in the gate's details; ``verification.equivalence.policy`` decides which pass
(default: proven or bounded). ABC runs when neither side can produce X (the AIGER miter is then
exact); otherwise, or when ``engine: yosys-sat`` is set, Yosys SAT in 4-state mode. Every solver
counterexample is replayed in Icarus before it refutes; the counterexample, the replay bench and its
stimulus stay in the stage folder. A reference Yosys cannot read is a configuration error.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Generator
from typing import Any

from ..errors import ConfigError
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
from ..runner import ToolResult
from ..stages.context import StageContext, checked_params
from ..stages.model import Invocation, Plan, Reply, Request, StageId, StageResult, call, failed, passed
from .golden import golden_files
from .tooling import strip_paths
from .vetting import Vetted

ERROR = re.compile(r"^(?:(\S+:\d+): )?ERROR: (.*)$", re.MULTILINE)  # Yosys: "[file:line: ]ERROR: what"
CEX_JSON = "counterexample.json"
Verdicts = Generator[Request, Reply, Verdict]


def _yosys_error(res: ToolResult) -> str:
    m = ERROR.search(res.stdout + "\n" + res.stderr)
    if not m:
        return res.describe()
    return strip_paths(f"{m.group(1)}: {m.group(2)}" if m.group(1) else m.group(2))


class _Check:
    """One equivalence check: the miter built, then the engines, each step a tool run of the plan."""

    def __init__(self, ctx: StageContext, spec: MiterSpec, gold_src: list[str]) -> None:
        self.ctx, self.spec, self.gold_src = ctx, spec, gold_src
        self.eq = ctx.design.verification.equivalence
        self.mode = "sequential" if ctx.design.interface.sequential else "combinational"
        self.t0 = time.monotonic()
        self.aig_map = ""
        self.files: dict[str, str] = {}  # artifacts: the counterexample

    def left(self) -> float:
        return max(1.0, self.eq.timeout_s - (time.monotonic() - self.t0))

    def verdict(self, kind: Kind, engine: str, reason: str = "", depth: int | None = None) -> Verdict:
        return Verdict(kind, engine, self.mode, reason, depth)

    def ports(self) -> dict[str, int]:
        return {p.name: p.width for p in self.ctx.design.interface.all_ports() if p.dir == "input"}

    def refute(self, engine: str, frames: Frames, depth: int | None) -> Verdicts:
        """Replay in Icarus; only a reproduced difference refutes."""
        frames = stimulus(self.spec, frames)
        gold = [f"../{p}" for p in self.gold_src]
        rep = yield from replay("replay", self.spec, frames, gold, "../golden", self.ctx.sources("replay"),
                                self.ctx.src_dir("replay"), self.ctx.sim_timeout)
        if rep.reproduced:
            frames = frames[: rep.cycle + 1]  # what follows the first difference is not needed to see it
        r = self.spec.phase_cycles
        clock = self.ctx.design.interface.clock
        rows: list[dict[str, Any]] = [{"cycle": k, "phase": "reset" if k < r else "run",
                 "inputs": {p: hexv(v) for p, v in f.items() if p != clock}} for k, f in enumerate(frames)]
        doc: dict[str, Any] = {"engine": engine, "reset_cycles": r, "cycles": rows}
        if rep.reproduced:
            doc["difference"] = {"cycle": rep.cycle, "port": rep.port, "reference": rep.reference,
                                 "candidate": rep.candidate}
        self.files[CEX_JSON] = json.dumps(doc, indent=1) + "\n"
        if not rep.reproduced:
            why = rep.error or "Icarus shows no difference on the solver's counterexample"
            v = self.verdict("inconclusive", engine, f"solver and simulator disagree ({why})", depth)
        else:
            diff = f"output `{rep.port}` reference {rep.reference}, candidate {rep.candidate}"
            if self.mode == "combinational":
                ins = " ".join(f"{p}=0x{v}" for p, v in rows[0]["inputs"].items())
                v = self.verdict("refuted", engine, f"inputs {ins}: {diff}", depth)
            else:
                run_rows = [row for row in rows if row["phase"] == "run"]
                hist = "; ".join(" ".join(f"{p}=0x{v}" for p, v in row["inputs"].items()) for row in run_rows)
                v = self.verdict("refuted", engine, f"cycle {rep.cycle - r} after the {r}-cycle reset: {diff} "
                                 f"(inputs per cycle after reset, full list in {CEX_JSON}: {hist})", depth)
        v.counterexample = [{"cycle": row["cycle"] - r, "inputs": row["inputs"]} for row in rows
                            if row["phase"] == "run"]
        v.files = {"counterexample": CEX_JSON, "replay": "replay/hh_replay_tb.v"}
        return v

    def abc_frames(self, cex: str) -> Frames:
        return abc_frames(cex, aiger_inputs(self.aig_map), self.ports())

    def with_abc(self) -> Verdicts:
        if self.mode == "combinational":
            out = yield from abc.combinational(self.left())
            if out.status == "proved":
                return self.verdict("proven", out.engine)
            if out.status == "cex":
                return (yield from self.refute(out.engine, self.abc_frames(out.cex), None))
            return self.verdict("inconclusive", out.engine, out.detail)
        r, depth = self.spec.phase_cycles, self.eq.depth
        p = yield from abc.prove(self.left() * 0.6)
        if p.status == "proved":
            return self.verdict("proven", p.engine)
        frames = max(r + depth, p.frames + 1) if p.status == "cex" else r + depth
        b = yield from abc.bmc(frames, self.left())
        if b.status == "cex":
            return (yield from self.refute(b.engine, self.abc_frames(b.cex), depth if b.frames < r + depth else None))
        reached = max(0, min(b.frames, r + depth) - r)
        if p.status == "cex":
            return self.verdict("inconclusive", f"{p.engine}, {b.engine}",
                                f"PDR found a difference in frame {p.frames} that BMC did not reproduce ({b.detail})")
        if reached >= depth:
            return self.verdict("bounded", f"{p.engine}, {b.engine}", f"unbounded proof: {p.detail}", reached)
        return self.verdict("inconclusive", f"{p.engine}, {b.engine}", f"{p.detail}; bmc3: {b.detail}")

    def with_sat(self, why: str) -> Verdicts:
        r, depth = self.spec.phase_cycles, self.eq.depth
        steps = None if self.mode == "combinational" else r + depth
        out = yield from sat(steps, self.left())
        engine = SAT_ENGINE + (f" ({why})" if why else "")
        if out.status == "proved":
            if steps is None:
                return self.verdict("proven", engine)
            return self.verdict("bounded", engine, "", depth)
        if out.status == "cex":
            return (yield from self.refute(engine, sat_frames(out.text, self.ports()), depth if steps else None))
        return self.verdict("inconclusive", engine, out.detail)

    def engines(self, hier_il: str, flat_il: str) -> Verdicts:
        """ABC when neither side can produce X and the AIGER is written, else (or when asked) Yosys SAT."""
        xs = x_sources(hier_il)
        if self.eq.engine == "yosys-sat":
            return (yield from self.with_sat(""))
        if xs:
            return (yield from self.with_sat("candidate X sources: " + ", ".join(xs[:3])))
        tied, _pairs = tie_inits(flat_il)
        # Yosys 0.23 can crash converting odd netlists: then the SAT engine reads the RTLIL
        aig = yield from call(Invocation("yosys-aiger", ("yosys", "-q", "-s", "hh_aiger.ys"), crash_is_data=True,
                                         files={TIED_IL: tied, "hh_aiger.ys": aiger_script()}, outputs=(AIG_MAP,)))
        if aig.result.signal_name:
            return (yield from self.with_sat(f"no AIGER: {aig.result.describe()}"))
        if not aig.result.ok:
            return (yield from self.with_sat(f"no AIGER: {_yosys_error(aig.result)}"))
        self.aig_map = aig.outputs.get(AIG_MAP, "")
        v = yield from self.with_abc()
        if v.kind == "inconclusive" and "disagree" in v.reason and self.left() > 2:
            # a free start value or X the solver chose that Icarus keeps X: ask the 4-state engine
            v = yield from self.with_sat(f"ABC: {v.reason}")
        return v


def _result(v: Verdict, policy: str, wall_s: float, golden: str, files: dict[str, str]) -> StageResult:
    v.wall_s = wall_s
    v.golden = golden
    details = {**v.to_dict(), "policy": policy}
    if v.accepted(policy):
        res = passed(StageId.EQUIVALENCE, v.summary(), wall_s, **details)
    else:
        msg = v.summary() + (" (policy: proven required)" if v.kind == "bounded" else "")
        res = failed(StageId.EQUIVALENCE, msg, wall_s, inconclusive=v.kind == "inconclusive", **details)
    return StageResult(res.stage, res.passed, res.message, res.details, wall_s, files=files, value=v)


class EquivalenceStage:
    """A formal check of the candidate against the golden side (``hyperheurist.formal``).

    One verdict of four (proven, bounded, refuted, inconclusive; see ``formal.verdict``), recorded with
    its engine and mode; ``verification.equivalence.policy`` decides which pass. ABC runs when neither
    side can produce X (the AIGER miter is then exact); otherwise, or with ``engine: yosys-sat``, Yosys
    SAT in 4-state mode. Every solver counterexample is replayed in Icarus before it refutes; the
    counterexample, the replay bench and its stimulus stay in the stage folder. A reference Yosys cannot
    read is a configuration error. The stage's ``value`` is the ``Verdict``."""

    id = StageId.EQUIVALENCE
    inputs = ("canonical/canonical.v", "golden/canonical/canonical.v")
    outputs = (WRAPPER, HIER_IL, FLAT_IL, CEX_JSON, "replay/")
    config = ("verification.equivalence", "interface", "limits.tool_timeout_s")

    def skip_reason(self, ctx: StageContext) -> str | None:
        if ctx.golden is None:
            return "no reference design"
        if not ctx.equivalence:
            return "equivalence disabled (verification.equivalence.enabled)"
        if ctx.design.verification.equivalence.against == "parent" and ctx.golden.origin == "reference":
            return "not run against the reference (verification.equivalence.against: parent)"
        return None

    def plan(self, ctx: StageContext) -> Plan:
        t0 = time.monotonic()
        golden = ctx.value(StageId.SAFETY, Vetted).golden
        assert golden is not None
        eq = ctx.design.verification.equivalence
        gfiles, gold_src, gold_top = golden_files(golden, "golden")
        spec = MiterSpec(iface=ctx.design.interface, gold_top=gold_top, gate_top=ctx.top,
                         gold_params=checked_params(golden), gate_params=ctx.params, reset_cycles=eq.reset_cycles,
                         reset_inputs=dict(eq.reset_inputs), compare_when=dict(eq.compare_when))
        check_spec(spec)
        check = _Check(ctx, spec, gold_src)
        against = "the reference" if golden.origin == "reference" else f"its parent {golden.short}"
        script = yosys_script(gold_src, "golden", ctx.sources(), ctx.src_dir())
        miter = yield from call(Invocation("yosys-miter", ("yosys", "-q", "-s", "hh_miter.ys"),
                                           files={**gfiles, **ctx.data_files(), WRAPPER: wrapper(spec),
                                                  "hh_miter.ys": script}, outputs=(HIER_IL, FLAT_IL)))
        if miter.result.ok:
            v = yield from check.engines(miter.outputs.get(HIER_IL, ""), miter.outputs.get(FLAT_IL, ""))
        elif miter.result.timed_out:
            v = check.verdict("inconclusive", "yosys", f"building the miter took over {ctx.tool_timeout:g} s")
        else:
            read = f"read_verilog -sv -Igolden {' '.join(gold_src)}\nhierarchy -check -top {gold_top}\nproc\n"
            ref = yield from call(Invocation("yosys-read-reference", ("yosys", "-q", "-s", "hh_read_reference.ys"),
                                             files={"hh_read_reference.ys": read}))
            if not ref.result.ok:
                raise ConfigError(f"verification.reference: Yosys cannot read the reference design: "
                                  f"{_yosys_error(ref.result)}")
            v = check.verdict("inconclusive", "yosys", f"cannot build the miter: {_yosys_error(miter.result)}")
        return _result(v, eq.policy, time.monotonic() - t0, against, check.files)
