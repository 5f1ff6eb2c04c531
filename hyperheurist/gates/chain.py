"""``run_gates``: the ordered gate chain, one stage folder and ``result.json`` per gate."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Sequence

from ..candidate import Candidate
from ..config import DesignConfig
from ..errors import ConfigError
from ..jsonio import write_json
from ..rundir import stage_dir
from .compile import check_compile
from .context import GateContext
from .equivalence import check_equivalence
from .result import GATES, GateReport, GateResult, skipped
from .safety import check_safety
from .simulation import check_simulation
from .structure import check_structure


def default_golden(design: DesignConfig) -> Candidate | None:
    ref = design.verification.reference
    if ref is None:
        return None
    return Candidate.from_paths([ref], top=design.top, origin="reference", label="reference")


def _applicable(gate: str, ctx: GateContext) -> str | None:
    """None when the gate runs, else why it is skipped."""
    v = ctx.design.verification
    if gate == "simulation":
        if not (v.cocotb or v.testbench or (ctx.golden is not None and v.differential.enabled)):
            return "no simulation check configured"
    if gate == "equivalence":
        if ctx.golden is None:
            return "no reference design"
        if not ctx.equivalence:
            return "equivalence disabled (verification.equivalence.enabled)"
    return None


def run_gates(cand: Candidate, design: DesignConfig, workdir: Path, *, reference: Candidate | None = None,
              equivalence: bool | None = None, only: Sequence[str] | None = None) -> GateReport:
    """Run safety, compile, structure, simulation, equivalence in order; stop at the first failure.

    ``reference`` is the golden side (any Candidate; default: verification.reference). Gates
    after a failure are reported as skipped. Raises ToolError for infrastructure faults only.
    """
    if only is not None:
        unknown = set(only) - set(GATES)
        if unknown:
            raise ConfigError(f"unknown gate(s): {', '.join(sorted(unknown))} (gates: {', '.join(GATES)})")
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    golden = reference if reference is not None else default_golden(design)
    eq = design.verification.equivalence.enabled if equivalence is None else equivalence
    ctx = GateContext(cand=cand, design=design, workdir=workdir, golden=golden, equivalence=eq)
    runners: dict[str, Callable[[Path], GateResult]] = {
        "safety": lambda d: check_safety(cand, design.limits),
        "compile": lambda d: check_compile(ctx, d),
        "structure": lambda d: check_structure(ctx, d),
        "simulation": lambda d: check_simulation(ctx, d),
        "equivalence": lambda d: check_equivalence(ctx, d),
    }
    results: list[GateResult] = []
    blocked: str | None = None
    index = 0
    written = False
    for gate in GATES:
        if only is not None and gate not in only:
            continue
        index += 1
        if blocked:
            results.append(skipped(gate, f"not run: {blocked} failed"))
            continue
        why = _applicable(gate, ctx)
        if why:
            results.append(skipped(gate, why))
            continue
        d = stage_dir(workdir, index, gate)
        t0 = time.monotonic()
        if gate != "safety" and not written:
            ctx.write_sources()  # only after the safety gate vetted names and sizes
            written = True
        res = runners[gate](d)
        if res.wall_s == 0.0:
            res = GateResult(res.gate, res.passed, res.message, res.details, time.monotonic() - t0, res.skipped)
        write_json(d / "result.json", res.to_dict())
        results.append(res)
        if not res.passed:
            blocked = gate
    return GateReport(tuple(results))
