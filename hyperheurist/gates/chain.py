"""``run_gates``: the ordered gate chain, one stage folder and ``result.json`` per gate."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ..candidate import Candidate
from ..config import DesignConfig
from ..errors import ConfigError
from ..jsonio import write_json
from ..rundir import stage_dir
from .compile import check_compile
from .context import GateContext
from .equivalence import check_equivalence
from .preprocess import check_canonical, load_canonical
from .result import GATES, GateReport, GateResult, failed, passed, skipped
from .safety import check_safety
from .simulation import check_simulation
from .structure import check_structure


def default_golden(design: DesignConfig) -> Candidate | None:
    from ..project.sources import reference_candidate  # a file, folder or filelist, with headers and defines

    return reference_candidate(design)


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


def _context(cand: Candidate, design: DesignConfig, workdir: Path, reference: Candidate | None,
             equivalence: bool | None) -> GateContext:
    golden = reference if reference is not None else default_golden(design)
    eq = design.verification.equivalence.enabled if equivalence is None else equivalence
    return GateContext(cand=cand, design=design, workdir=Path(workdir), golden=golden, equivalence=eq)


def _settle(ctx: GateContext, results: list[GateResult]) -> list[GateResult]:
    """Run the structure gate in full (with its generic ``synth``); if that fails, the results the
    chain would have given without deferral: structure failed, later stages removed and skipped."""
    i = next(k for k, r in enumerate(results) if r.gate == "structure")
    d = stage_dir(ctx.workdir, i + 1, "structure")
    res = check_structure(ctx, d)
    if res.passed:
        return results
    write_json(d / "result.json", res.to_dict())
    out = results[:i] + [res]
    for k, r in enumerate(results[i + 1 :], start=i + 2):
        if not r.skipped:
            shutil.rmtree(ctx.workdir / f"{k:02d}-{r.gate}", ignore_errors=True)
        out.append(skipped(r.gate, "not run: structure failed"))
    return out


def _safety(ctx: GateContext) -> GateResult:
    """The raw-text filter, then (only once it passed) the sources on disk, one canonical
    preprocessed design, and the same scan on that text."""
    t0 = time.monotonic()
    raw = check_safety(ctx.cand, ctx.design.limits)
    if not raw.passed:
        return raw
    ctx.write_sources()  # only after the raw check vetted names and sizes
    problem, details = check_canonical(ctx)
    if problem:
        return failed("safety", problem, time.monotonic() - t0, **details)
    return passed("safety", f"{raw.message}; one canonical design for every tool", time.monotonic() - t0, **details)


def _deferred(report: GateReport) -> bool:
    return any(r.gate == "structure" and r.passed and not r.skipped for r in report.results)


def settle_synthesis(report: GateReport, cand: Candidate, design: DesignConfig, workdir: Path, *,
                     reference: Candidate | None = None, equivalence: bool | None = None) -> GateReport:
    """For a report made with ``defer_synthesis=True`` whose later synthesis failed: run the structure
    gate's own synthesis; the report the full chain would have given (unchanged if it synthesizes)."""
    if not _deferred(report):
        return report
    ctx = _context(cand, design, workdir, reference, equivalence)
    ctx.canonical = load_canonical(ctx.workdir)  # what the earlier gates read, made by their safety gate
    return GateReport(tuple(_settle(ctx, list(report.results))))


def run_gates(cand: Candidate, design: DesignConfig, workdir: Path, *, reference: Candidate | None = None,
              equivalence: bool | None = None, only: Sequence[str] | None = None,
              defer_synthesis: bool = False) -> GateReport:
    """Run safety, compile, structure, simulation, equivalence in order; stop at the first failure.

    ``reference`` is the golden side (any Candidate; default: verification.reference). Gates
    after a failure are reported as skipped. Raises ToolError for infrastructure faults only.

    ``defer_synthesis``: for callers that synthesize the candidate right after the gates (PPA). The
    structure gate then skips its generic ``synth`` (the costliest part of the gate, and repeated by
    the PPA synthesis); when a later gate fails, the synthesis check runs after all, so the report is
    the one the full chain gives. A caller whose own synthesis fails calls ``settle_synthesis``.
    """
    if only is not None:
        unknown = set(only) - set(GATES)
        if unknown:
            raise ConfigError(f"unknown gate(s): {', '.join(sorted(unknown))} (gates: {', '.join(GATES)})")
        if "safety" not in only:
            only = ["safety", *only]  # the trust boundary: every tool reads the canonical text it makes
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    ctx = _context(cand, design, workdir, reference, equivalence)
    runners: dict[str, Callable[[Path], GateResult]] = {
        "safety": lambda d: _safety(ctx),
        "compile": lambda d: check_compile(ctx, d),
        "structure": lambda d: check_structure(ctx, d, synth=not defer_synthesis),
        "simulation": lambda d: check_simulation(ctx, d),
        "equivalence": lambda d: check_equivalence(ctx, d),
    }
    results: list[GateResult] = []
    blocked: str | None = None
    index = 0
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
        res = runners[gate](d)
        if res.wall_s == 0.0:
            res = GateResult(res.gate, res.passed, res.message, res.details, time.monotonic() - t0, res.skipped)
        write_json(d / "result.json", res.to_dict())
        results.append(res)
        if not res.passed:
            blocked = gate
    if defer_synthesis and blocked not in (None, "safety", "compile", "structure") \
            and _deferred(GateReport(tuple(results))):
        results = _settle(ctx, results)  # would the structure gate have failed first?
    return GateReport(tuple(results))
