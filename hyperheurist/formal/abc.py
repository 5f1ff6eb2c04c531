"""ABC engines on the AIGER miter (one output, ``trigger``; latches zero-initialised by Yosys).

Combinational: ``&cec -m`` (fraiging SAT sweeping: shared logic of the two sides is merged first).
Sequential: a quick ``bmc3`` bounded by conflicts (a shallow difference, found in a fraction of a second,
before an unbounded proof spends its budget), then ``scorr`` + ``pdr`` (property directed reachability,
IC3) for the unbounded proof (cheap when the sides share logic), then ``bmc3`` for the full depth.

Budgets are effort, not wall time, so that a verdict does not depend on how busy the machine is: conflict
limits where ABC has them, otherwise CPU seconds (ABC's ``-T`` counts the thread's CPU time, and the
process gets the same RLIMIT_CPU). The wall clock only backstops a run, ``WALL_FACTOR`` times its CPU
budget; a run it stops is ``cut``: the machine's doing, never a verdict (see ``check``). A budget spent is
"undecided", never a pass.
"""

from __future__ import annotations

import math
import re
from collections.abc import Generator
from dataclasses import dataclass

from ..runner import ToolResult
from ..stages.model import Invocation, Reply, Request, ToolRun, call
from .miter import AIG

CEX_FILE = "hh_cex.txt"
ASSERTED = re.compile(r"was asserted in frame (\d+)")
NO_FAIL = re.compile(r"No output (?:asserted|failed) in (\d+) frames")
CONFLICT_LIMIT = re.compile(r"conf(?:lict)? limit", re.IGNORECASE)
WALL_FACTOR, WALL_SLACK_S = 4, 5.0  # the wall-clock backstop of a run: 4x its CPU budget + 5 s
QUICK_BMC_CONFLICTS = 10_000  # the quick bmc3: 0.24 s on average over 242 equivalent miters of the sweep
CEC_CONFLICTS, SCORR_CONFLICTS = 100_000, 30_000  # per node (&cec, scorr)


@dataclass
class AbcOutcome:
    status: str  # "proved" | "cex" | "undecided"
    engine: str
    detail: str = ""  # undecided: why; bmc: frames searched
    frames: int = 0  # bmc: frames without a difference; cex: the frame of the difference
    cex: str = ""  # cex: ABC's counterexample file (``write_cex -n``)
    cut: bool = False  # stopped by the wall-clock backstop (not by its budget): says nothing reproducible


Engine = Generator[Request, Reply, AbcOutcome]


def wall_backstop(cpu_s: float) -> float:
    return WALL_FACTOR * cpu_s + WALL_SLACK_S


def wall_cut(res: ToolResult, cpu_s: float) -> str:
    """Why an engine run the wall clock stopped says nothing about the design."""
    return f"stopped by the wall clock after {res.wall_s:.0f} s, before its CPU budget of {cpu_s:g} s was spent " \
           "(a busy machine)"


def _abc(commands: str, name: str, cpu_s: float) -> Generator[Request, Reply, tuple[ToolRun, str]]:
    # ABC checks -T only between SAT calls: RLIMIT_CPU stops a call that overruns, the wall clock backstops both
    run = yield from call(Invocation(name, ("yosys-abc", "-c", f"read_aiger {AIG}; strash; {commands}"),
                                     outputs=(CEX_FILE,), timeout_s=wall_backstop(cpu_s),
                                     cpu_s=math.ceil(cpu_s) + 2, crash_is_data=True))
    return run, run.text()


def _undecided(res: ToolResult, text: str, engine: str, cpu_s: float) -> AbcOutcome:
    if res.timed_out:
        return AbcOutcome("undecided", engine, wall_cut(res, cpu_s), cut=True)
    if res.cpu_limited or "timeout" in text.lower():
        return AbcOutcome("undecided", engine, f"CPU budget of {cpu_s:g} s spent")
    if CONFLICT_LIMIT.search(text):
        return AbcOutcome("undecided", engine, "conflict budget spent")
    if res.returncode != 0:
        return AbcOutcome("undecided", engine, f"yosys-abc failed: {res.describe()}")
    last = [ln.strip() for ln in text.splitlines() if ln.strip()][-1:] or ["no output"]
    return AbcOutcome("undecided", engine, f"no verdict ({last[0][:120]})")


def combinational(cpu_s: float) -> Engine:
    t = max(1, int(cpu_s))
    run, text = yield from _abc(f"&get; &cec -m -C {CEC_CONFLICTS} -T {t}", "abc-cec", cpu_s)
    if "Networks are equivalent" in text and not run.result.timed_out:
        return AbcOutcome("proved", "abc &cec")
    if "NOT EQUIVALENT" not in text:
        return _undecided(run.result, text, "abc &cec", cpu_s)
    # &cec's own counterexample refers to its internal network (write_cex asserts in ABC 1.01):
    # ask ABC's SAT sweeper for the model of the known-satisfiable miter
    run, text = yield from _abc(f"iprove; write_cex -n {CEX_FILE}", "abc-iprove", cpu_s)
    if "SATISFIABLE" in text and "UNSATISFIABLE" not in text and CEX_FILE in run.outputs:
        return AbcOutcome("cex", "abc &cec", cex=run.outputs[CEX_FILE])
    return _undecided(run.result, text, "abc &cec (refuted; no counterexample from iprove)", cpu_s)


def bmc(frames: int, cpu_s: float, conflicts: int = 0, name: str = "abc-bmc3") -> Engine:
    """``frames`` cycles of bounded model checking; ``conflicts`` > 0 bounds it by conflicts (the quick one)."""
    t = max(1, int(cpu_s))
    limit = f" -C {conflicts}" if conflicts else ""
    run, text = yield from _abc(f"bmc3 -F {frames}{limit} -T {t}; write_cex -n {CEX_FILE}", name, cpu_s)
    m = ASSERTED.search(text)
    if m and CEX_FILE in run.outputs:
        return AbcOutcome("cex", "abc bmc3", frames=int(m.group(1)), cex=run.outputs[CEX_FILE])
    m = NO_FAIL.search(text)
    if m and not run.result.timed_out:
        spent = ""
        if int(m.group(1)) < frames:
            spent = "; conflict budget spent" if CONFLICT_LIMIT.search(text) else f"; CPU budget of {cpu_s:g} s spent"
        return AbcOutcome("undecided", "abc bmc3", f"no difference in {m.group(1)} frames{spent}",
                          frames=int(m.group(1)))
    return _undecided(run.result, text, "abc bmc3", cpu_s)


def prove(cpu_s: float) -> Engine:
    """Unbounded: signal correspondence (``scorr``, induction over classes of equal signals, which
    merges what parent and child share) and then PDR on what is left. A difference found here is only
    located (its frame); ``bmc`` then gives the counterexample on the unreduced miter."""
    t = max(1, int(cpu_s))
    run, text = yield from _abc(f"scorr -C {SCORR_CONFLICTS}; pdr -T {t}", "abc-pdr", cpu_s)
    if "Property proved" in text and not run.result.timed_out:
        return AbcOutcome("proved", "abc scorr+pdr")
    m = ASSERTED.search(text)
    if m:
        return AbcOutcome("cex", "abc scorr+pdr", frames=int(m.group(1)))
    return _undecided(run.result, text, "abc scorr+pdr", cpu_s)
