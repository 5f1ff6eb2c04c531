"""One PPA estimate: the PPA stages (synthesis, STA, power) through the stage runner, with the PPA cache."""

from __future__ import annotations

import functools
import math
from dataclasses import replace
from pathlib import Path

from .candidate import Candidate
from .config import DesignConfig
from .errors import ConfigError, ToolError
from .ppa import techmap
from .ppa.activity import Power
from .ppa.cache import KeyExtra, NetlistSimKey, PPACache, WideKey, cache_key
from .ppa.critical_path import endpoint, reannotate
from .ppa.liberty import file_digest, read_liberty
from .ppa.metrics import FIDELITIES, PPADetails, PPAMetrics
from .ppa.sta import StaResult
from .ppa.synth import NETLIST_JSON, NO_WIDE, WIDE_MAP, SynthesisRejected, Synthesized, map_files, wide_screen
from .ppa.techmap import wide
from .recipe import Recipe
from .stages.context import StageContext
from .stages.model import Stage, StageId, StageResult, skipped
from .stages.runner import StageRunner
from .versions import version_key


@functools.lru_cache(maxsize=16)
def _liberty_digest(path: str, mtime_ns: int, size: int) -> str:
    return file_digest(Path(path))


def liberty_digest(path: Path) -> str:
    st = Path(path).stat()
    return _liberty_digest(str(path), st.st_mtime_ns, st.st_size)


def tools_key(power: str) -> str:
    names = ("yosys", "sta", "iverilog", "vvp", "ivlpp") if power == "activity" else ("yosys", "sta", "ivlpp")
    return version_key(names)


def key_for(cand: Candidate, design: DesignConfig, recipe: Recipe | None, power: str,
            netlist: str | None = None) -> str:
    """The cache key of (RTL, recipe); with ``netlist`` (a netlist digest) the key of that mapped netlist."""
    lib = Path(design.ppa.liberty_path or "")
    try:
        lib_digest = liberty_digest(lib)
    except OSError as exc:
        raise ToolError(f"cannot read liberty {lib}: {exc.strerror}") from None
    extra = KeyExtra(top=cand.top, interface=design.interface.model_dump(mode="json"))
    if power == "activity":
        extra["verification"] = design.verification.model_dump(mode="json")
    ns = design.verification.netlist_sim
    if ns.enabled:  # an entry answers the netlist_sim stage too: only one made with it, on the same bench
        extra["netlist_sim"] = NetlistSimKey(cycles=ns.cycles or design.verification.differential.cycles,
                                             seed=design.verification.differential.seed, cocotb=ns.cocotb == "always")
    maps = map_files(recipe, read_liberty(lib)) if recipe is not None and not netlist else {}
    fallback = wide_screen(design, cand) if not netlist else NO_WIDE
    if fallback.div_bits is not None:  # the wide-operator fallback may change this RTL's script
        extra["wide"] = WideKey(bits=fallback.div_bits, map=techmap.digest({WIDE_MAP: techmap.text(wide.FILE)}))
    mul_bits = design.ppa.wide_multiplier_bits  # keyed when not the default: a product's key is the one it was
    if not netlist and mul_bits != type(design.ppa).model_fields["wide_multiplier_bits"].default \
            and wide.operators(t for _, t in cand.files)[1]:
        extra["wide_mul"] = mul_bits
    return cache_key(candidate=f"netlist:{netlist}" if netlist else cand.digest,
                     recipe={} if netlist or recipe is None else recipe.to_dict(), liberty_digest=lib_digest, maps=maps,
                     tools=tools_key(power), power=power, clock_period_ns=design.ppa.clock_period_ns,
                     activity=design.ppa.input_activity, extra=extra)


def ppa_context(cand: Candidate, design: DesignConfig, recipe: Recipe, power: str) -> StageContext:
    """What the PPA stages read: the recipe, the parsed liberty and the power fidelity."""
    if power not in FIDELITIES:
        raise ConfigError(f"power fidelity {power!r}: use one of {', '.join(FIDELITIES)}")
    return StageContext(cand=cand, design=design, recipe=recipe, liberty=read_liberty(design.ppa.liberty_path or ""),
                        power=power)


class PPAReuse:
    """The stage runner's cache for the PPA stages: a (RTL, recipe) estimate answers all three; a mapped
    netlist timed before (another recipe or RTL) answers STA and power."""

    def __init__(self, cache: PPACache | None, key: str) -> None:
        self.cache, self.key = cache, key
        self.hit = cache.get(key) if cache is not None and key else None
        self.seen: PPAMetrics | None = None

    def __call__(self, stage: Stage, ctx: StageContext) -> StageResult | None:
        if self.cache is None or stage.id not in (StageId.SYNTHESIS, StageId.STA, StageId.POWER):
            return None
        if self.hit is not None:
            return skipped(stage.id, "reused: this RTL and recipe were estimated before (PPA cache)")
        if stage.id == StageId.SYNTHESIS:
            return None
        syn = ctx.value(StageId.SYNTHESIS, Synthesized)
        if self.seen is None:
            self.seen = self.cache.get(key_for(ctx.cand, ctx.design, None, ctx.power, netlist=syn.digest))
        if self.seen is None:
            return None
        return skipped(stage.id, f"reused: this mapped netlist ({syn.digest[:12]}) was timed before")


def metrics_of(ctx: StageContext, reuse: PPAReuse) -> PPAMetrics:
    """The estimate the finished PPA stages give (or the cache gave), stored under its keys."""
    if reuse.hit is not None:
        return replace(reuse.hit, cached=True)
    assert ctx.recipe is not None and ctx.liberty is not None
    syn = ctx.value(StageId.SYNTHESIS, Synthesized)
    synth_s = round(ctx.results[StageId.SYNTHESIS].wall_s, 4)
    # synth_facts: what this synthesis's log said (FSMs, share candidates), for the search's knob pruning; a
    # reused netlist's entry came from another recipe, so its facts are always replaced by these
    details: PPADetails = {"recipe": ctx.recipe.to_dict(), "candidate": ctx.cand.digest,
                           "netlist_digest": syn.digest, "synth_facts": syn.facts.to_dict()}
    if reuse.seen is not None:  # this mapped netlist was timed before: its STA and power numbers, its own RTL names
        m = replace(reuse.seen, timings={"synth_s": synth_s, "sta_s": 0.0, "power_s": 0.0},
                    details={**reuse.seen.details, **details, "netlist_reused": True})
        m = _own_rtl_names(ctx, syn, m)
    else:
        m = _assemble(ctx, syn, synth_s, details)
    if reuse.cache is not None:
        reuse.cache.put(reuse.key, m)
        reuse.cache.put(key_for(ctx.cand, ctx.design, None, ctx.power, netlist=syn.digest), m)
    return m


def _own_rtl_names(ctx: StageContext, syn: Synthesized, m: PPAMetrics) -> PPAMetrics:
    """``m`` (another design's, on the same mapped netlist) with the critical path named from this design's
    netlist JSON: equal netlists from two RTL texts carry different src lines, and which was timed first
    depends on the order of evaluation, which must not reach a result."""
    assert ctx.liberty is not None
    stages = m.details.get("critical_path_stages")
    if not isinstance(stages, list):
        return m
    outputs = {name: {p.name for p in cell.outputs()} for name, cell in ctx.liberty.cells.items()}
    own = reannotate(stages, ctx.root / Path(syn.netlist).with_name(NETLIST_JSON), syn.modules, ctx.top, outputs)
    path = {**m.critical_path, "rtl_start": endpoint(own, last=False), "rtl_end": endpoint(own, last=True)}
    return replace(m, critical_path=path, details={**m.details, "critical_path_stages": own})


def _assemble(ctx: StageContext, syn: Synthesized, synth_s: float, details: PPADetails) -> PPAMetrics:
    assert ctx.liberty is not None
    sta, pw = ctx.value(StageId.STA, StaResult), ctx.value(StageId.POWER, Power)
    fmax = 1000.0 / sta.delay_ns if sta.delay_ns > 0 else 0.0
    split = {"internal_mw": pw.internal_w * 1e3, "switching_mw": pw.switching_w * 1e3, "leakage_mw": pw.leakage_w * 1e3}
    hist = syn.histogram
    return PPAMetrics(
        area_um2=round(sum(syn.area_by_cell.values()), 6), cells=sum(hist.values()), cell_histogram=hist,
        delay_ns=round(sta.delay_ns, 6), slack_ns=round(sta.slack_ns, 6),
        fmax_mhz=round(fmax, 4) if math.isfinite(fmax) else 0.0, met_timing=sta.slack_ns >= 0,
        critical_path={"start": sta.start, "end": sta.end, "start_kind": sta.details["start_kind"],
                       "end_kind": sta.details["end_kind"], "group": sta.path_group,
                       "rtl_start": sta.details.get("rtl_start", ""), "rtl_end": sta.details.get("rtl_end", "")},
        power_mw=round((pw.internal_w + pw.switching_w + pw.leakage_w) * 1e3, 9),
        dynamic_mw=round((pw.internal_w + pw.switching_w) * 1e3, 9), leakage_mw=round(pw.leakage_w * 1e3, 12),
        power_fidelity=ctx.power, liberty=str(ctx.liberty.path),
        timings={"synth_s": synth_s, "sta_s": round(ctx.results[StageId.STA].wall_s, 4),
                 "power_s": round(ctx.results[StageId.POWER].wall_s, 4)},
        clock_period_ns=ctx.design.ppa.clock_period_ns,
        area_by_cell={k: round(v, 6) for k, v in syn.area_by_cell.items()},
        power_split={k: round(v, 9) for k, v in split.items()},
        details={"power": pw.details, "yosys_warnings": syn.warnings,
                 "critical_path_stages": sta.details.get("stages", []), **details},
    )


def estimate(cand: Candidate, design: DesignConfig, recipe: Recipe, workdir: Path, *,
             power: str = "vectorless", cache: PPACache | None = None) -> PPAMetrics:
    """Synthesize ``cand`` with ``recipe`` onto the design's liberty and report area, timing, power
    (``PPA_PIPELINE``: the canonical design first, so synthesis reads exactly what a simulator would).

    ``power`` is "vectorless" (OpenSTA with ppa.input_activity) or "activity" (gate-level simulation
    under the design's own stimulus). A stage failing on the design raises SynthesisRejected (exit 1),
    an infrastructure fault ToolError.
    """
    from .pipelines import PPA_PIPELINE

    ctx = ppa_context(cand, design, recipe, power)
    reuse = PPAReuse(cache, key_for(cand, design, recipe, power) if cache is not None else "")
    if reuse.hit is not None:
        return replace(reuse.hit, cached=True)
    results = StageRunner(Path(workdir), ctx, reuse).run(PPA_PIPELINE)
    bad = next((r for r in results if not r.passed), None)
    if bad is not None:
        raise SynthesisRejected(f"{bad.stage} stage: {bad.message}")
    return metrics_of(ctx, reuse)
