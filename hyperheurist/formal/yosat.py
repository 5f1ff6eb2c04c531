"""The Yosys SAT engine: 4-state (``-enable_undef``) on the unoptimised flattened miter.

Used when a side can produce X (ABC's AIGER has no X) or when asked for. Inputs are defined
(``-set-def-inputs``), registers without an init value start undefined like in Icarus
(``-set-init-undef``; the wrapper's phase register has its init value), and the wrapper's ``===``
compares keep a golden X a don't-care and a candidate X a difference. Combinational: a full proof;
sequential: bounded to the reset phase plus ``depth`` cycles.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass

from ..stages.model import Invocation, Reply, Request, call
from .miter import FLAT_IL

ENGINE = "yosys sat -enable_undef"


@dataclass
class SatOutcome:
    status: str  # "proved" | "cex" | "undecided"
    detail: str = ""
    text: str = ""  # the solver log (the -show-inputs table of a counterexample)


def sat(steps: int | None, limit_s: float) -> Generator[Request, Reply, SatOutcome]:
    t = max(1, int(limit_s))
    cmd = f"sat -prove trigger 0 -enable_undef -set-def-inputs -show-inputs -timeout {t}"
    if steps is not None:
        cmd += f" -seq {steps} -set-init-undef"
    script = f"read_rtlil {FLAT_IL}\nhierarchy -top hh_miter\n{cmd} hh_miter\n"
    run = yield from call(Invocation("yosys-sat", ("yosys", "-s", "hh_sat.ys"), files={"hh_sat.ys": script},
                                     timeout_s=limit_s + 30, crash_is_data=True))
    res = run.result
    text = res.stdout
    if res.timed_out or "TIMEOUT" in text or "Interrupted SAT solver" in text:
        return SatOutcome("undecided", f"time cap of {limit_s:g} s reached")
    if res.returncode != 0:
        return SatOutcome("undecided", f"yosys sat failed: {res.describe()}")
    if "SUCCESS!" in text:
        return SatOutcome("proved")
    if "FAIL!" in text:
        return SatOutcome("cex", text=text)
    return SatOutcome("undecided", "yosys sat gave no verdict")
