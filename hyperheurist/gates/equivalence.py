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
from pathlib import Path

from ..errors import ConfigError, ToolError
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
from ..formal.verdict import Verdict
from ..formal.yosat import ENGINE as SAT_ENGINE
from ..formal.yosat import sat
from .context import GateContext, checked_params
from .golden import write_golden
from .result import GateResult, failed, passed, skipped
from .tooling import rel, run, strip_paths

ERROR = re.compile(r"^(?:(\S+:\d+): )?ERROR: (.*)$", re.MULTILINE)  # Yosys: "[file:line: ]ERROR: what"
CEX_JSON = "counterexample.json"


def _spec(ctx: GateContext, gold_top: str) -> MiterSpec:
    assert ctx.golden is not None
    eq = ctx.design.verification.equivalence
    spec = MiterSpec(iface=ctx.design.interface, gold_top=gold_top, gate_top=ctx.top,
                     gold_params=checked_params(ctx.golden), gate_params=ctx.params, reset_cycles=eq.reset_cycles,
                     reset_inputs=dict(eq.reset_inputs), compare_when=dict(eq.compare_when))
    check_spec(spec)
    return spec


def _yosys_error(res) -> str:
    m = ERROR.search(res.stdout + "\n" + res.stderr)
    if not m:
        return res.describe()
    return strip_paths(f"{m.group(1)}: {m.group(2)}" if m.group(1) else m.group(2))


def _reference_unreadable(ctx: GateContext, stage: Path, gold_src: list[Path], gold_top: str) -> str | None:
    """Why Yosys cannot read the golden side on its own (None: it can; the candidate is at fault)."""
    script = stage / "hh_read_reference.ys"
    script.write_text(f"read_verilog -sv -I{rel(stage / 'golden', stage)} " + " ".join(rel(p, stage) for p in gold_src)
                      + f"\nhierarchy -check -top {gold_top}\nproc\n", encoding="utf-8")
    res = run(ctx, ["yosys", "-q", "-s", script.name], name="yosys-read-reference", stage=stage)
    if res.ok:
        return None
    return _yosys_error(res)


class _Check:
    """One equivalence check in one stage folder."""

    def __init__(self, ctx: GateContext, stage: Path, spec: MiterSpec, gold_src: list[Path]) -> None:
        self.ctx, self.stage, self.spec, self.gold_src = ctx, stage, spec, gold_src
        self.eq = ctx.design.verification.equivalence
        self.mode = "sequential" if ctx.design.interface.sequential else "combinational"
        self.t0 = time.monotonic()

    def run(self, argv: list[str], *, name: str, stage: Path, timeout_s: float, cwd: Path | None = None):
        return run(self.ctx, argv, name=name, stage=stage, timeout_s=timeout_s, cwd=cwd)

    def left(self) -> float:
        return max(1.0, self.eq.timeout_s - (time.monotonic() - self.t0))

    def verdict(self, kind: str, engine: str, reason: str = "", depth: int | None = None) -> Verdict:
        return Verdict(kind, engine, self.mode, reason, depth)  # type: ignore[arg-type]

    def ports(self) -> dict[str, int]:
        return {p.name: p.width for p in self.ctx.design.interface.all_ports() if p.dir == "input"}

    def refute(self, engine: str, frames: Frames, depth: int | None) -> Verdict:
        """Replay in Icarus; only a reproduced difference refutes."""
        frames = stimulus(self.spec, frames)
        stage = self.stage
        folder = stage / "replay"
        gold = [Path(rel(p, folder)) for p in self.gold_src]
        gate = [Path(rel(p, folder)) for p in self.ctx.sources()]
        folder.mkdir(exist_ok=True)
        self.ctx.stage_inputs(folder)  # $readmem data files beside the simulator
        rep = replay(self.run, folder, self.spec, frames, gold, Path(rel(stage / "golden", folder)), gate,
                     Path(rel(self.ctx.src_dir, folder)), self.ctx.sim_timeout)
        if rep.reproduced:
            frames = frames[: rep.cycle + 1]  # what follows the first difference is not needed to see it
        r = self.spec.phase_cycles
        clock = self.ctx.design.interface.clock
        rows = [{"cycle": k, "phase": "reset" if k < r else "run",
                 "inputs": {p: hexv(v) for p, v in f.items() if p != clock}} for k, f in enumerate(frames)]
        doc: dict = {"engine": engine, "reset_cycles": r, "cycles": rows}
        if rep.reproduced:
            doc["difference"] = {"cycle": rep.cycle, "port": rep.port, "reference": rep.reference, "candidate": rep.candidate}
        (stage / CEX_JSON).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
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
        v.counterexample = [{"cycle": row["cycle"] - r, "inputs": row["inputs"]} for row in rows if row["phase"] == "run"]
        v.files = {"counterexample": CEX_JSON, "replay": "replay/hh_replay_tb.v"}
        return v

    def abc_frames(self) -> Frames:
        cex_text = (self.stage / abc.CEX_FILE).read_text(encoding="utf-8")
        inputs = aiger_inputs((self.stage / AIG_MAP).read_text(encoding="utf-8"))
        return abc_frames(cex_text, inputs, self.ports())

    def with_abc(self) -> Verdict:
        if self.mode == "combinational":
            out = abc.combinational(self.run, self.stage, self.left())
            if out.status == "proved":
                return self.verdict("proven", out.engine)
            if out.status == "cex":
                return self.refute(out.engine, self.abc_frames(), None)
            return self.verdict("inconclusive", out.engine, out.detail)
        r, depth = self.spec.phase_cycles, self.eq.depth
        p = abc.prove(self.run, self.stage, self.left() * 0.6)
        if p.status == "proved":
            return self.verdict("proven", p.engine)
        frames = max(r + depth, p.frames + 1) if p.status == "cex" else r + depth
        b = abc.bmc(self.run, self.stage, frames, self.left())
        if b.status == "cex":
            return self.refute(b.engine, self.abc_frames(), depth if b.frames < r + depth else None)
        reached = max(0, min(b.frames, r + depth) - r)
        if p.status == "cex":
            return self.verdict("inconclusive", f"{p.engine}, {b.engine}",
                                f"PDR found a difference in frame {p.frames} that BMC did not reproduce ({b.detail})")
        if reached >= depth:
            return self.verdict("bounded", f"{p.engine}, {b.engine}", f"unbounded proof: {p.detail}", reached)
        return self.verdict("inconclusive", f"{p.engine}, {b.engine}", f"{p.detail}; bmc3: {b.detail}")

    def with_sat(self, why: str) -> Verdict:
        r, depth = self.spec.phase_cycles, self.eq.depth
        steps = None if self.mode == "combinational" else r + depth
        out = sat(self.run, self.stage, steps, self.left())
        engine = SAT_ENGINE + (f" ({why})" if why else "")
        if out.status == "proved":
            if steps is None:
                return self.verdict("proven", engine)
            return self.verdict("bounded", engine, "", depth)
        if out.status == "cex":
            return self.refute(engine, sat_frames(out.text, self.ports()), depth if steps else None)
        return self.verdict("inconclusive", engine, out.detail)


def _result(v: Verdict, policy: str, wall_s: float, golden: str = "the reference") -> GateResult:
    v.wall_s = wall_s
    v.golden = golden
    details = {**v.to_dict(), "policy": policy}
    if v.accepted(policy):
        return passed("equivalence", v.summary(), wall_s, **details)
    msg = v.summary()
    if v.kind == "bounded":
        msg += " (policy: proven required)"
    return failed("equivalence", msg, wall_s, inconclusive=v.kind == "inconclusive", **details)


def check_equivalence(ctx: GateContext, stage: Path) -> GateResult:
    t0 = time.monotonic()
    assert ctx.golden is not None
    eq = ctx.design.verification.equivalence
    if eq.against == "parent" and ctx.golden.origin == "reference":
        return skipped("equivalence", "not run against the reference (verification.equivalence.against: parent)")
    gold_src, gold_top = write_golden(ctx.golden, stage / "golden")
    ctx.stage_inputs(stage)
    spec = _spec(ctx, gold_top)
    (stage / WRAPPER).write_text(wrapper(spec), encoding="utf-8")
    script = stage / "hh_miter.ys"
    script.write_text(yosys_script([rel(p, stage) for p in gold_src], rel(stage / "golden", stage),
                                   [rel(p, stage) for p in ctx.sources()], rel(ctx.src_dir, stage)), encoding="utf-8")
    check = _Check(ctx, stage, spec, gold_src)
    mode = check.mode
    res = run(ctx, ["yosys", "-q", "-s", script.name], name="yosys-miter", stage=stage)
    if not res.ok:
        if res.timed_out:
            v = Verdict("inconclusive", "yosys", mode, f"building the miter took over {ctx.tool_timeout:g} s")
            return _result(v, eq.policy, time.monotonic() - t0)
        why = _reference_unreadable(ctx, stage, gold_src, gold_top)
        if why is not None:
            raise ConfigError(f"verification.reference: Yosys cannot read the reference design: {why}")
        v = Verdict("inconclusive", "yosys", mode, f"cannot build the miter: {_yosys_error(res)}")
        return _result(v, eq.policy, time.monotonic() - t0)
    xs = x_sources((stage / HIER_IL).read_text(encoding="utf-8", errors="replace"))
    if eq.engine == "yosys-sat":
        v = check.with_sat("")
    elif xs:
        v = check.with_sat("candidate X sources: " + ", ".join(xs[:3]))
    else:
        tied, _pairs = tie_inits((stage / FLAT_IL).read_text(encoding="utf-8", errors="replace"))
        (stage / TIED_IL).write_text(tied, encoding="utf-8")
        (stage / "hh_aiger.ys").write_text(aiger_script(), encoding="utf-8")
        crash = ""
        try:
            aig = run(ctx, ["yosys", "-q", "-s", "hh_aiger.ys"], name="yosys-aiger", stage=stage)
        except ToolError as exc:  # Yosys 0.23 can crash converting odd netlists: the SAT engine reads the RTLIL
            aig, crash = None, str(exc).split(";")[0]
        if aig is None:
            v = check.with_sat(f"no AIGER: {crash}")
        elif not aig.ok:
            v = check.with_sat(f"no AIGER: {_yosys_error(aig)}")
        else:
            v = check.with_abc()
            if v.kind == "inconclusive" and "disagree" in v.reason and check.left() > 2:
                # a free start value or X the solver chose that Icarus keeps X: ask the 4-state engine
                v = check.with_sat(f"ABC: {v.reason}")
    golden = "the reference" if ctx.golden.origin == "reference" else f"its parent {ctx.golden.short}"
    return _result(v, eq.policy, time.monotonic() - t0, golden)
