"""The Yosys SAT engine: 4-state (``-enable_undef``) on the unoptimised flattened miter.

Used when a side can produce X (ABC's AIGER has no X) or when asked for. Inputs are defined
(``-set-def-inputs``), registers without an init value start undefined like in Icarus
(``-set-init-undef``; the wrapper's phase register has its init value), and the wrapper's ``===``
compares keep a golden X a don't-care and a candidate X a difference. Combinational: a full proof;
sequential: bounded to the reset phase plus ``depth`` cycles. Its budget is CPU time (RLIMIT_CPU: Yosys'
own ``-timeout`` is an alarm, wall time); the wall clock only backstops it, and a run it stops is ``cut``.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass

from ..stages.model import Invocation, Reply, Request, call
from .abc import wall_backstop, wall_cut
from .miter import FLAT_IL

ENGINE = "yosys sat -enable_undef"


@dataclass
class SatOutcome:
    status: str  # "proved" | "cex" | "undecided"
    detail: str = ""
    text: str = ""  # the solver log (the -show-inputs table of a counterexample)
    cut: bool = False  # stopped by the wall-clock backstop before its CPU budget was spent


def sat(steps: int | None, cpu_s: float) -> Generator[Request, Reply, SatOutcome]:
    cmd = "sat -prove trigger 0 -enable_undef -set-def-inputs -show-inputs"
    if steps is not None:
        cmd += f" -seq {steps} -set-init-undef"
    script = f"read_rtlil {FLAT_IL}\nhierarchy -top hh_miter\n{cmd} hh_miter\n"
    run = yield from call(Invocation("yosys-sat", ("yosys", "-s", "hh_sat.ys"), files={"hh_sat.ys": script},
                                     timeout_s=wall_backstop(cpu_s), cpu_s=math.ceil(cpu_s), crash_is_data=True))
    res = run.result
    text = res.stdout
    if res.timed_out:
        return SatOutcome("undecided", wall_cut(res, cpu_s), cut=True)
    if res.cpu_limited:
        return SatOutcome("undecided", f"CPU budget of {cpu_s:g} s spent")
    if res.returncode != 0:
        return SatOutcome("undecided", f"yosys sat failed: {res.describe()}")
    if "SUCCESS!" in text:
        return SatOutcome("proved")
    if "FAIL!" in text:
        return SatOutcome("cex", text=text)
    return SatOutcome("undecided", "yosys sat gave no verdict")
