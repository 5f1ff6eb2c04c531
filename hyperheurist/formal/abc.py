"""ABC engines on the AIGER miter (one output, ``trigger``; latches zero-initialised by Yosys).

Combinational: ``&cec -m`` (fraiging SAT sweeping: shared logic of the two sides is merged first).
Sequential: ``scorr`` + ``pdr`` (property directed reachability, IC3) try an unbounded proof first
(cheap when the sides share logic); otherwise ``bmc3`` searches ``frames`` cycles for the shortest
difference. Every call has ABC's own time limit and a
wall-clock backstop; a limit reached is "undecided", never a pass.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from dataclasses import dataclass

from ..runner import ToolResult
from ..stages.model import Invocation, Reply, Request, ToolRun, call
from .miter import AIG

CEX_FILE = "hh_cex.txt"
ASSERTED = re.compile(r"was asserted in frame (\d+)")
NO_FAIL = re.compile(r"No output (?:asserted|failed) in (\d+) frames")


@dataclass
class AbcOutcome:
    status: str  # "proved" | "cex" | "undecided"
    engine: str
    detail: str = ""  # undecided: why; bmc: frames searched
    frames: int = 0  # bmc: frames without a difference; cex: the frame of the difference
    cex: str = ""  # cex: ABC's counterexample file (``write_cex -n``)


Engine = Generator[Request, Reply, AbcOutcome]


def _abc(commands: str, name: str, limit_s: float) -> Generator[Request, Reply, tuple[ToolRun, str]]:
    # ABC checks -T only between SAT calls: the wall clock backstops it
    run = yield from call(Invocation(name, ("yosys-abc", "-c", f"read_aiger {AIG}; strash; {commands}"),
                                     outputs=(CEX_FILE,), timeout_s=limit_s + 2, crash_is_data=True))
    return run, run.text()


def _undecided(res: ToolResult, text: str, engine: str, limit_s: float) -> AbcOutcome:
    if res.timed_out or "timeout" in text.lower() or "resource limit" in text.lower():
        return AbcOutcome("undecided", engine, f"time cap of {limit_s:g} s reached")
    if res.returncode != 0:
        return AbcOutcome("undecided", engine, f"yosys-abc failed: {res.describe()}")
    last = [ln.strip() for ln in text.splitlines() if ln.strip()][-1:] or ["no output"]
    return AbcOutcome("undecided", engine, f"no verdict ({last[0][:120]})")


def combinational(limit_s: float) -> Engine:
    t = max(1, int(limit_s))
    run, text = yield from _abc(f"&get; &cec -m -C 100000 -T {t}", "abc-cec", limit_s)
    if "Networks are equivalent" in text and not run.result.timed_out:
        return AbcOutcome("proved", "abc &cec")
    if "NOT EQUIVALENT" not in text:
        return _undecided(run.result, text, "abc &cec", limit_s)
    # &cec's own counterexample refers to its internal network (write_cex asserts in ABC 1.01):
    # ask ABC's SAT sweeper for the model of the known-satisfiable miter
    run, text = yield from _abc(f"iprove; write_cex -n {CEX_FILE}", "abc-iprove", limit_s)
    if "SATISFIABLE" in text and "UNSATISFIABLE" not in text and CEX_FILE in run.outputs:
        return AbcOutcome("cex", "abc &cec", cex=run.outputs[CEX_FILE])
    return _undecided(run.result, text, "abc &cec (refuted; no counterexample from iprove)", limit_s)


def bmc(frames: int, limit_s: float) -> Engine:
    t = max(1, int(limit_s))
    run, text = yield from _abc(f"bmc3 -F {frames} -T {t}; write_cex -n {CEX_FILE}", "abc-bmc3", limit_s)
    m = ASSERTED.search(text)
    if m and CEX_FILE in run.outputs:
        return AbcOutcome("cex", "abc bmc3", frames=int(m.group(1)), cex=run.outputs[CEX_FILE])
    m = NO_FAIL.search(text)
    if m and not run.result.timed_out:
        return AbcOutcome("undecided", "abc bmc3", f"no difference in {m.group(1)} frames", frames=int(m.group(1)))
    return _undecided(run.result, text, "abc bmc3", limit_s)


def prove(limit_s: float) -> Engine:
    """Unbounded: signal correspondence (``scorr``, induction over classes of equal signals, which
    merges what parent and child share) and then PDR on what is left. A difference found here is only
    located (its frame); ``bmc`` then gives the counterexample on the unreduced miter."""
    t = max(1, int(limit_s))
    run, text = yield from _abc(f"scorr -C 30000; pdr -T {t}", "abc-pdr", limit_s)
    if "Property proved" in text and not run.result.timed_out:
        return AbcOutcome("proved", "abc scorr+pdr")
    m = ASSERTED.search(text)
    if m:
        return AbcOutcome("cex", "abc scorr+pdr", frames=int(m.group(1)))
    return _undecided(run.result, text, "abc scorr+pdr", limit_s)
