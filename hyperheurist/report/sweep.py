"""Sweep aggregation: per-benchmark statistics over seeds, and its CSV and Markdown text (the files: ``sweep_page``).

Definitions (also written into ``sweep.json`` so a reader need not find this file):

- baseline = a run's ``initial`` point, annealed = its ``best`` point; mean and sample std over seeds.
- improvement (%) = 100 * (1 - best_cost / baseline_cost), per seed, then mean and std.
- ratio_vs_baseline = best_cost / baseline_cost; a benchmark's value is the geometric mean over its
  seeds, the sweep's value the geometric mean over benchmarks (each benchmark weighs the same).
- single_pass = one valid Phase-1 candidate with the default recipe and no search (an entry's
  ``single_pass`` dict, when the sweep recorded it); its cost is on the same baseline normalisation.
- ratio_vs_reference = best_cost / reference_cost, where the reference's cost is computed on the same
  baseline normalisation (the reference dict carries it); aggregated the same way, over the
  benchmarks that have a reference.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import NotRequired, TypedDict

from ..errors import InputError
from ..jsonio import as_dict, num, text
from ..record.summary import Point, RunSummary
from .fmt import fnum
from .stats import MeanStd, geomean, mean_std

METRIC_KEYS = ("cost", "area_um2", "delay_ns", "power_mw")
DEFINITIONS = {
    "baseline": "summary 'initial' point; mean and sample std over seeds",
    "annealed": "summary 'best' point; mean and sample std over seeds",
    "improvement_pct": "100 * (1 - best_cost / baseline_cost) per seed; mean and sample std over seeds",
    "ratio_vs_baseline": "best_cost / baseline_cost; geometric mean over seeds, then over benchmarks",
    "ratio_vs_reference": "best_cost / reference_cost (same baseline normalisation); geometric mean over seeds, "
                          "then over benchmarks with a reference",
    "single_pass": "one valid Phase-1 candidate, default recipe, no search; cost on the same baseline "
                   "normalisation; mean and sample std over seeds",
}


JsonObject = dict[str, object]  # a JSON object the sweep reads defensively (a sweep entry, a summary's point)
PointStats = dict[str, MeanStd]  # metric (METRIC_KEYS) -> mean and std over seeds
Entry = Mapping[str, object]  # a sweep entry: benchmark, seed, summary (summary.json), reference, single_pass, run_dir


class RunRow(TypedDict):
    """One seed's run of a benchmark."""

    seed: object
    baseline_cost: float | None
    best_cost: float | None
    improvement_pct: float | None
    ratio_vs_baseline: float | None
    ratio_vs_reference: float | None
    run_dir: str | None


class Phase1Means(TypedDict):
    """Phase 1's counts, means over seeds."""

    candidates: float | None
    valid: float | None
    repaired: float | None
    rejected_by_gate: dict[str, float | None]


class WallTime(MeanStd):
    total: float


class BenchmarkRow(TypedDict):
    """One benchmark over its seeds (the module docstring defines each figure)."""

    benchmark: str
    seeds: list[object]
    n: int
    baseline: PointStats
    annealed: PointStats
    reference: dict[str, float | None] | None
    single_pass: PointStats | None  # and "improvement_pct"
    reference_improvement_pct: float | None
    improvement_pct: MeanStd
    ratio_vs_baseline: float | None
    ratio_vs_reference: float | None
    phase1: Phase1Means
    evaluations: MeanStd
    wall_s: WallTime
    incomplete: list[object]
    runs: list[RunRow]


class Geomean(TypedDict):
    ratio_vs_baseline: float | None
    benchmarks_vs_baseline: int
    ratio_vs_reference: float | None
    benchmarks_vs_reference: int


class Sweep(TypedDict):
    """sweep.json: what ``aggregate`` computes, and what tools/sweep.py adds about the sweep itself."""

    benchmarks: list[BenchmarkRow]
    runs: int
    geomean: Geomean
    definitions: dict[str, str]
    failed_runs: NotRequired[list[str]]  # "<benchmark>/s<seed>" of each run that failed
    wall_s: NotRequired[float | None]
    settings: NotRequired[dict[str, object]]  # seeds, iterations, jobs
    selection_vs_search: NotRequired[list[dict[str, object]]]  # tools/sweep.py's own table


def _point_stats(points: list[JsonObject]) -> PointStats:
    return {k: mean_std(p.get(k) for p in points) for k in METRIC_KEYS}


def _ratio(a: object, b: object) -> float | None:
    x, y = num(a), num(b)
    return x / y if x is not None and y is not None and y > 0 and x >= 0 else None


def _phase1(summaries: list[RunSummary]) -> Phase1Means:
    p1s = [s.phase1 for s in summaries]
    gates = sorted({g for p in p1s for g in p.rejected_by_gate})
    return Phase1Means(
        candidates=mean_std(p.candidates for p in p1s)["mean"],
        valid=mean_std(p.valid for p in p1s)["mean"],
        repaired=mean_std(p.repaired for p in p1s)["mean"],
        # a gate a run did not list rejected nothing in that run
        rejected_by_gate={g: mean_std(p.rejected_by_gate.get(g, 0) for p in p1s)["mean"] for g in gates},
    )


def _point(p: Point | None) -> JsonObject:
    return p.to_json() if p is not None else {}


def _row(benchmark: str, entries: list[Entry]) -> BenchmarkRow:
    entries = sorted(entries, key=lambda e: (num(e.get("seed")) is None, num(e.get("seed")) or 0, text(e.get("seed"))))
    summaries = [RunSummary.read(e.get("summary")) for e in entries]
    initial = [_point(s.initial) for s in summaries]
    best = [_point(s.best) for s in summaries]
    refs = [as_dict(e.get("reference")) for e in entries]
    reference = next((r for r in refs if r), None)
    runs: list[RunRow] = []
    improvements: list[float | None] = []
    r_base: list[float | None] = []
    r_ref: list[float | None] = []
    for e, s, ini, bst, ref in zip(entries, summaries, initial, best, refs, strict=True):
        rb = _ratio(bst.get("cost"), ini.get("cost"))
        rr = _ratio(bst.get("cost"), ref.get("cost")) if ref else None
        imp = 100.0 * (1.0 - rb) if rb is not None else None
        improvements.append(imp)
        r_base.append(rb)
        r_ref.append(rr)
        runs.append(RunRow(seed=e.get("seed"), baseline_cost=num(ini.get("cost")), best_cost=num(bst.get("cost")),
                           improvement_pct=imp, ratio_vs_baseline=rb, ratio_vs_reference=rr,
                           run_dir=text(e.get("run_dir")) or s.run_dir or None))
    singles = [as_dict(e.get("single_pass")) for e in entries]
    sp_impr = [100.0 * (1.0 - r) if (r := _ratio(sp.get("cost"), ini.get("cost"))) is not None else None
               for sp, ini in zip(singles, initial, strict=True) if sp]
    single_pass: PointStats | None = ({**_point_stats([sp for sp in singles if sp]),
                                       "improvement_pct": mean_std(sp_impr)} if any(singles) else None)
    ref_point = {k: num(reference.get(k)) for k in METRIC_KEYS} if reference else None
    base_mean = mean_std(p.get("cost") for p in initial)["mean"]
    ref_ratio = _ratio(ref_point.get("cost"), base_mean) if ref_point else None
    ref_impr = 100.0 * (1.0 - ref_ratio) if ref_ratio is not None else None
    wall = mean_std(s.wall_s for s in summaries)
    return BenchmarkRow(
        benchmark=benchmark,
        seeds=[e.get("seed") for e in entries],
        n=len(entries),
        baseline=_point_stats(initial),
        annealed=_point_stats(best),
        reference=ref_point,
        single_pass=single_pass,
        reference_improvement_pct=ref_impr,
        improvement_pct=mean_std(improvements),
        ratio_vs_baseline=geomean(r_base),
        ratio_vs_reference=geomean(r_ref),
        phase1=_phase1(summaries),
        evaluations=mean_std(s.evaluations for s in summaries),
        wall_s=WallTime(mean=wall["mean"], std=wall["std"], n=wall["n"],
                        total=sum(s.wall_s for s in summaries if s.wall_s is not None)),
        incomplete=[e.get("seed") for e, rb in zip(entries, r_base, strict=True) if rb is None],
        runs=runs,
    )


def aggregate(entries: Sequence[Entry]) -> Sweep:
    """Per-benchmark rows (sorted by name) plus the geometric means across benchmarks."""
    groups: dict[str, list[Entry]] = defaultdict(list)
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or not text(e.get("benchmark")):
            raise InputError(f"sweep entry {i}: needs a 'benchmark' name")
        groups[text(e["benchmark"])].append(e)
    rows = [_row(b, groups[b]) for b in sorted(groups)]
    vs_base = [r["ratio_vs_baseline"] for r in rows if r["ratio_vs_baseline"] is not None]
    vs_ref = [r["ratio_vs_reference"] for r in rows if r["ratio_vs_reference"] is not None]
    return Sweep(
        benchmarks=rows,
        runs=len(entries),
        geomean=Geomean(ratio_vs_baseline=geomean(vs_base), benchmarks_vs_baseline=len(vs_base),
                        ratio_vs_reference=geomean(vs_ref), benchmarks_vs_reference=len(vs_ref)),
        definitions=DEFINITIONS,
    )


CSV_COLUMNS = ["benchmark", "seeds"] + [f"{side}_{k}_{s}" for side in ("baseline", "annealed") for k in METRIC_KEYS
                                        for s in ("mean", "std")] + \
    [f"reference_{k}" for k in METRIC_KEYS] + \
    ["improvement_pct_mean", "improvement_pct_std", "ratio_vs_baseline", "ratio_vs_reference",
     "p1_candidates", "p1_valid", "p1_repaired", "p1_rejected", "evaluations_mean", "wall_s_mean", "wall_s_total",
     "single_pass_cost_mean", "single_pass_cost_std"]


def _csv_row(r: BenchmarkRow) -> list[str]:
    def v(x: object) -> str:
        n = num(x)
        return "" if n is None else f"{n:.6g}"
    cells: list[str] = [r["benchmark"], str(r["n"])]
    for side in ("baseline", "annealed"):
        for k in METRIC_KEYS:
            cells += [v(r[side][k]["mean"]), v(r[side][k]["std"])]
    ref = r["reference"] or {}
    cells += [v(ref.get(k)) for k in METRIC_KEYS]
    p1 = r["phase1"]
    rejected = sum(n for n in p1["rejected_by_gate"].values() if n is not None)
    cells += [v(r["improvement_pct"]["mean"]), v(r["improvement_pct"]["std"]), v(r["ratio_vs_baseline"]),
              v(r["ratio_vs_reference"]), v(p1["candidates"]), v(p1["valid"]), v(p1["repaired"]),
              v(rejected), v(r["evaluations"]["mean"]), v(r["wall_s"]["mean"]),
              v(r["wall_s"]["total"])]
    sp = as_dict(as_dict(r.get("single_pass")).get("cost"))
    cells += [v(sp.get("mean")), v(sp.get("std"))]
    return cells


def to_csv(agg: Sweep) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in agg["benchmarks"]:
        w.writerow(_csv_row(r))
    return buf.getvalue()


def _ms(d: Mapping[str, object], digits: int = 4) -> str:
    if d.get("mean") is None:
        return "–"
    return fnum(d["mean"], digits) + (f" ± {fnum(d['std'], 2)}" if d.get("std") is not None else "")


def _md_cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def to_markdown(agg: Sweep) -> str:
    head = ["benchmark", "seeds", "baseline cost", "single-pass cost", "annealed cost", "reference cost",
            "improvement %", "area um2 (base → best)", "delay ns (base → best)", "power mW (base → best)",
            "P1 valid/cand", "evals", "wall s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
    for r in agg["benchmarks"]:
        ref = r["reference"] or {}
        b, a, p1 = r["baseline"], r["annealed"], r["phase1"]
        sp = as_dict(as_dict(r.get("single_pass")).get("cost"))
        cells = [r["benchmark"], str(r["n"]), _ms(b["cost"]), _ms(sp), _ms(a["cost"]),
                 fnum(ref.get("cost"), missing="–"), _ms(r["improvement_pct"], 3)]
        cells += [f"{fnum(b[k]['mean'], missing='–')} → {fnum(a[k]['mean'], missing='–')}"
                  for k in ("area_um2", "delay_ns", "power_mw")]
        cells += [f"{fnum(p1['valid'], missing='–')}/{fnum(p1['candidates'], missing='–')}",
                  fnum(r["evaluations"]["mean"], missing="–"), fnum(r["wall_s"]["mean"], 3, missing="–")]
        lines.append("| " + " | ".join(_md_cell(c) for c in cells) + " |")
    g = agg["geomean"]
    lines += ["", f"Geometric mean of best/baseline cost: {fnum(g['ratio_vs_baseline'], missing='–')} "
                  f"over {g['benchmarks_vs_baseline']} benchmark(s); best/reference cost: "
                  f"{fnum(g['ratio_vs_reference'], missing='–')} over {g['benchmarks_vs_reference']} benchmark(s) "
                  "(below 1 = better).", ""]
    return "\n".join(lines)

