"""Gate 5, equivalence: a formal check of the candidate against the golden side (``hyperheurist.formal``).

One verdict of four (proven, bounded, refuted, inconclusive; see ``formal.verdict``), recorded with
its engine and mode in the gate's details; ``verification.equivalence.policy`` decides which pass
(default: proven or bounded). ABC runs when neither side can produce X (the AIGER miter is then
exact); otherwise, or when ``engine: yosys-sat`` is set, Yosys SAT in 4-state mode. Every solver
counterexample is replayed in Icarus before it refutes; the counterexample, the replay bench and its
stimulus stay in the stage folder. A reference Yosys cannot read is a configuration error. Budgets are
CPU time (``verification.equivalence.timeout_s``); a check the wall clock cut before its budget was spent
is a tool fault (exit 3 in ``hh gate``, retried on resume in ``hh run``), never a verdict.
"""

from __future__ import annotations

import time

from ..errors import ConfigError, ToolError
from ..formal.check import CEX_JSON, Check, Side, yosys_error
from ..formal.driver import Bounds, check_job
from ..formal.miter import FLAT_IL, HIER_IL, WRAPPER, MiterSpec
from ..formal.verdict import Verdict
from ..stages.context import StageContext, checked_params
from ..stages.golden import golden_files
from ..stages.model import Invocation, Plan, StageId, StageResult, call, failed, passed
from ..stages.vetted import Vetted
from .tooling import strip_paths


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
        against = "the reference" if golden.origin == "reference" else f"its parent {golden.short}"
        bounds = Bounds(eq, ctx.design.limits, ctx.sim_timeout)
        check = Check(check_job(spec, Side(tuple(gold_src), "golden", "reference"),
                                Side(tuple(ctx.sources()), ctx.src_dir(), "candidate"),
                                {**gfiles, **ctx.data_files()}, bounds, clean=strip_paths))
        v = yield from check.plan()
        if v.cut:  # the machine's doing, not the candidate's: a tool fault (retried on resume), never a verdict
            raise ToolError(f"equivalence check against {against} stopped by the wall clock ({v.cut}) before its CPU "
                            f"budget of {eq.timeout_s:g} s (verification.equivalence.timeout_s) was spent: this "
                            f"machine is too busy for the check; no verdict on the candidate")
        if check.miter_failed is not None and not check.miter_failed.timed_out:
            read = f"read_verilog -sv -Igolden {' '.join(gold_src)}\nhierarchy -check -top {gold_top}\nproc\n"
            ref = yield from call(Invocation("yosys-read-reference", ("yosys", "-q", "-s", "hh_read_reference.ys"),
                                             files={"hh_read_reference.ys": read}))
            if not ref.result.ok:
                raise ConfigError(f"verification.reference: Yosys cannot read the reference design: "
                                  f"{strip_paths(yosys_error(ref.result))}")
        return _result(v, eq.policy, time.monotonic() - t0, against, check.files)
