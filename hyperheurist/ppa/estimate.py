"""One PPA estimate: synthesis (10-synth), timing + vectorless power (11-sta), power (12-power)."""

from __future__ import annotations

import functools
import math
import time
from pathlib import Path

from ..candidate import Candidate
from ..config import DesignConfig
from ..errors import ConfigError
from ..jsonio import write_json
from ..recipe import Recipe
from ..rundir import stage_dir
from ..tools import version_key
from .cache import PPACache, cache_key
from .liberty import Liberty, file_digest, read_liberty
from .metrics import FIDELITIES, PPAMetrics
from .nethash import netlist_digest
from .netlist import histogram, read_netlist
from .sta import run_sta
from .synth import synthesize

SYNTH_STAGE, STA_STAGE, POWER_STAGE = 10, 11, 12


@functools.lru_cache(maxsize=16)
def _liberty_digest(path: str, mtime_ns: int, size: int) -> str:
    return file_digest(Path(path))


def liberty_digest(path: Path) -> str:
    st = Path(path).stat()
    return _liberty_digest(str(path), st.st_mtime_ns, st.st_size)


def tools_key(power: str) -> str:
    names = ("yosys", "sta", "iverilog", "vvp", "ivlpp") if power == "activity" else ("yosys", "sta", "ivlpp")
    return version_key(names)


def key_for(cand: Candidate, design: DesignConfig, recipe: Recipe | None, power: str, netlist: str | None = None) -> str:
    """The cache key of (RTL, recipe); with ``netlist`` (a netlist digest) the key of that mapped netlist."""
    from ..errors import ToolError

    lib = Path(design.ppa.liberty_path or "")
    try:
        lib_digest = liberty_digest(lib)
    except OSError as exc:
        raise ToolError(f"cannot read liberty {lib}: {exc.strerror}") from None
    extra = {"top": cand.top, "interface": design.interface.model_dump(mode="json")}
    if power == "activity":
        extra["verification"] = design.verification.model_dump(mode="json")
    return cache_key(candidate=f"netlist:{netlist}" if netlist else cand.digest,
                     recipe={} if netlist or recipe is None else recipe.to_dict(), liberty_digest=lib_digest,
                     tools=tools_key(power), power=power, clock_period_ns=design.ppa.clock_period_ns,
                     activity=design.ppa.input_activity, extra=extra)


def _area(hist: dict[str, int], lib: Liberty) -> dict[str, float]:
    from ..errors import ToolError

    missing = sorted(c for c in hist if c not in lib.cells)
    if missing:
        raise ToolError(f"mapped netlist uses cells not in {lib.path}: {', '.join(missing[:5])}")
    return {c: n * lib.cells[c].area for c, n in hist.items()}


def canonical(cand: Candidate, design: DesignConfig, workdir: Path) -> Candidate:
    """The candidate as the gates simulated it: one preprocessed text (``hdl.canonical``), so a
    `` `ifdef SYNTHESIS `` branch can never give synthesis a design the simulators did not see."""
    from ..hdl.canonical import PreprocessError, canonical_candidate, preprocess_with
    from .synth import SynthesisRejected

    cand.write(workdir)
    try:
        canon = preprocess_with(cand, workdir, design.limits)
    except PreprocessError as exc:
        raise SynthesisRejected(f"the design does not preprocess: {exc}") from None
    from ..gates.preprocess import scan_canonical

    problem = scan_canonical(cand, canon)  # what the safety gate refuses is never handed to a tool
    if problem:
        raise SynthesisRejected(f"safety gate, after preprocessing: {problem}")
    return canonical_candidate(cand, canon)


def estimate(cand: Candidate, design: DesignConfig, recipe: Recipe, workdir: Path, *,
             power: str = "vectorless", cache: PPACache | None = None) -> PPAMetrics:
    """Synthesize ``cand`` with ``recipe`` onto the design's liberty and report area, timing, power.

    ``power`` is "vectorless" (OpenSTA with ppa.input_activity) or "activity" (gate-level simulation
    under the design's own stimulus). Tool failures raise ToolError with the first real error line.
    """
    if power not in FIDELITIES:
        raise ConfigError(f"power fidelity {power!r}: use one of {', '.join(FIDELITIES)}")
    key = key_for(cand, design, recipe, power) if cache is not None else ""
    if cache is not None:
        hit = cache.get(key)
        if hit is not None:
            return PPAMetrics(**{**hit.__dict__, "cached": True})
    workdir = Path(workdir)
    lim = design.limits
    lib = read_liberty(design.ppa.liberty_path or "")
    period = design.ppa.clock_period_ns

    sdir = stage_dir(workdir, SYNTH_STAGE, "synth")
    syn = synthesize(canonical(cand, design, workdir), recipe, Path(lib.path), sdir, timeout_s=lim.tool_timeout_s,
                     mem_mb=lim.tool_mem_mb, sandbox=lim.sandbox)
    modules = read_netlist(syn.netlist)
    hist = dict(sorted(histogram(modules, cand.top).items()))
    area_by = _area(hist, lib)
    area = sum(area_by.values())
    write_json(sdir / "result.json", {"netlist": str(syn.netlist), "wall_s": round(syn.wall_s, 4),
                                      "recipe": recipe.to_dict(), "area_um2": area, "cells": sum(hist.values()),
                                      "cell_histogram": hist})

    ndigest = netlist_digest(syn.netlist)
    nkey = key_for(cand, design, None, power, netlist=ndigest) if cache is not None else ""
    seen = cache.get(nkey) if cache is not None else None
    if seen is not None:  # this mapped netlist was timed before (another recipe or RTL): reuse STA and power
        reused = PPAMetrics(**{**seen.__dict__, "timings": {"synth_s": round(syn.wall_s, 4), "sta_s": 0.0, "power_s": 0.0},
                               "details": {**seen.details, "recipe": recipe.to_dict(), "candidate": cand.digest,
                                           "netlist_digest": ndigest, "netlist_reused": True}})
        cache.put(key, reused)
        return reused

    tdir = stage_dir(workdir, STA_STAGE, "sta")
    sta = run_sta(syn.netlist, cand.top, design, lib, tdir, timeout_s=lim.tool_timeout_s, mem_mb=lim.tool_mem_mb)
    met = sta.slack_ns >= 0
    fmax = 1000.0 / sta.delay_ns if sta.delay_ns > 0 else 0.0
    write_json(tdir / "result.json", {"delay_ns": sta.delay_ns, "slack_ns": sta.slack_ns, "start": sta.start,
                                      "end": sta.end, "path_group": sta.path_group, "wall_s": round(sta.wall_s, 4),
                                      "vectorless_power_w": {"internal": sta.internal_w, "switching": sta.switching_w,
                                                             "leakage": sta.leakage_w}})

    pdir = stage_dir(workdir, POWER_STAGE, "power")
    t0 = time.monotonic()
    if power == "activity":
        from .activity import activity_power

        pw = activity_power(syn.netlist, cand, design, lib, modules, pdir)
        internal, switching, leakage = pw.internal_w, pw.switching_w, pw.leakage_w
        power_details = pw.details
    else:
        internal, switching, leakage = sta.internal_w, sta.switching_w, sta.leakage_w
        power_details = {"source": "OpenSTA report_power", "input_activity": design.ppa.input_activity}
    power_s = time.monotonic() - t0
    split = {"internal_mw": internal * 1e3, "switching_mw": switching * 1e3, "leakage_mw": leakage * 1e3}
    write_json(pdir / "result.json", {"fidelity": power, **split, "wall_s": round(power_s, 4),
                                      "details": power_details})

    metrics = PPAMetrics(
        area_um2=round(area, 6), cells=sum(hist.values()), cell_histogram=hist,
        delay_ns=round(sta.delay_ns, 6), slack_ns=round(sta.slack_ns, 6),
        fmax_mhz=round(fmax, 4) if math.isfinite(fmax) else 0.0, met_timing=met,
        critical_path={"start": sta.start, "end": sta.end, "start_kind": sta.details["start_kind"],
                       "end_kind": sta.details["end_kind"], "group": sta.path_group},
        power_mw=round((internal + switching + leakage) * 1e3, 9), dynamic_mw=round((internal + switching) * 1e3, 9),
        leakage_mw=round(leakage * 1e3, 12), power_fidelity=power, liberty=str(lib.path),
        timings={"synth_s": round(syn.wall_s, 4), "sta_s": round(sta.wall_s, 4), "power_s": round(power_s, 4)},
        clock_period_ns=period, area_by_cell={k: round(v, 6) for k, v in area_by.items()},
        power_split={k: round(v, 9) for k, v in split.items()},
        details={"power": power_details, "yosys_warnings": syn.warnings, "recipe": recipe.to_dict(),
                 "candidate": cand.digest, "netlist_digest": ndigest},
    )
    if cache is not None:
        cache.put(key, metrics)
        cache.put(nkey, metrics)
    return metrics
