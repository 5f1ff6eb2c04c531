#!/usr/bin/env python3
"""The benchmark sweep: `hh run` on every benchmark for K seeds, plus the reference, into one table.

Writes <out>/sweep.json, sweep.csv, sweep.md and sweep.html. Runs execute as separate `hh run`
processes (one evaluation job each), JOBS at a time on this machine, or spread over a Ray cluster
with `--executor ray` (`--ray-address` / RAY_ADDRESS; one CPU per run; `--out` must be on a
filesystem every node shares, and every node needs this repository at the same path and the tools).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hyperheurist.config import load_design  # noqa: E402
from hyperheurist.jsonio import read_json  # noqa: E402
from hyperheurist.ppa.metrics import PPAMetrics  # noqa: E402
from hyperheurist.record.entries import Phase1Record, parse_record  # noqa: E402
from hyperheurist.record.enums import Validity  # noqa: E402
from hyperheurist.record.summary import RunSummary  # noqa: E402


def hh() -> list[str]:
    return [sys.executable, "-m", "hyperheurist"]


def run_one(design_yaml: Path, seed: int, iterations: int | None, out: Path, timeout_s: float) -> dict:
    argv = [*hh(), "run", str(design_yaml), "--seed", str(seed), "--jobs", "1", "--quiet", "--out", str(out / "runs")]
    if iterations is not None:
        argv += ["--iterations", str(iterations)]
    t0 = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, stdin=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    runs = sorted((out / "runs" / load_design(design_yaml).name).glob(f"*-s{seed}*"), key=lambda p: p.stat().st_mtime)
    run_dir = runs[-1] if runs else None
    if proc.returncode != 0 or run_dir is None or not (run_dir / "summary.json").is_file():
        return {"ok": False, "rc": proc.returncode, "stderr": proc.stderr.strip().splitlines()[-3:], "wall_s": wall,
                "run_dir": str(run_dir) if run_dir else None}
    return {"ok": True, "run_dir": str(run_dir), "summary": read_json(run_dir / "summary.json"), "wall_s": wall}


def existing_run(design_yaml: Path, seed: int, out: Path) -> dict:
    """The newest finished run of (design, seed) under ``out/runs``, shaped like ``run_one``'s result."""
    runs = sorted((out / "runs" / load_design(design_yaml).name).glob(f"*-s{seed}*"), key=lambda p: p.stat().st_mtime)
    done = [r for r in runs if (r / "summary.json").is_file()]
    if not done:
        return {"ok": False, "rc": None, "stderr": ["no finished run to aggregate"], "wall_s": 0.0, "run_dir": None}
    summary = read_json(done[-1] / "summary.json")
    return {"ok": True, "run_dir": str(done[-1]), "summary": summary, "wall_s": float(summary.get("wall_s") or 0.0)}


def reference_ppa(design_yaml: Path, run_dir: Path) -> dict | None:
    """The hand-written reference with the default recipe, costed against the run's baseline."""
    from hyperheurist.candidate import Candidate
    from hyperheurist.estimate import estimate
    from hyperheurist.flow import Scorer
    from hyperheurist.ppa import PPACache
    from hyperheurist.recipe import load_flow

    design = load_design(design_yaml)
    if design.verification.reference is None:
        return None
    flow = load_flow(design.ppa.flow)
    cand = Candidate.from_paths([design.verification.reference], design.top, label="reference")
    m = estimate(cand, design, flow.recipe, run_dir / "reference-ppa", power=design.ppa.power, cache=PPACache.default())
    scorer = Scorer(design, flow)
    scorer.baseline = PPAMetrics.from_dict(read_json(run_dir / "initial" / "ppa.json")["metrics"])
    return {"area_um2": m.area_um2, "delay_ns": m.delay_ns, "power_mw": m.power_mw, "cost": scorer(m)}


def phase1_valid(run_dir: Path) -> list[Phase1Record]:
    """The run's valid Phase-1 records, in journal order (read through the typed journal record)."""
    from hyperheurist.jsonio import read_jsonl

    records = [parse_record(obj) for obj in read_jsonl(run_dir / "journal.jsonl")]
    return [r for r in records if isinstance(r, Phase1Record) and r.verdict == Validity.VALID]


def single_pass(design_yaml: Path, run_dir: Path, seed: int) -> dict | None:
    """Single-pass generation as a user without hh gets it: one valid design with the default recipe, no
    search. Sweep seed k takes the k-th valid Phase-1 candidate (cycling), so K seeds cover the spread of
    answers evenly. Offline the candidates are the seed files, standing for one-shot LLM answers."""
    from hyperheurist.flow import Scorer
    from hyperheurist.recipe import load_flow

    design = load_design(design_yaml)
    valid = [r for r in phase1_valid(run_dir) if not r.repaired_from]
    if not valid:
        return None
    pick = valid[(seed - 1) % len(valid)]
    scorer = Scorer(design, load_flow(design.ppa.flow))
    scorer.baseline = PPAMetrics.from_dict(read_json(run_dir / "initial" / "ppa.json")["metrics"])
    m = PPAMetrics.from_dict(pick.evaluation.metrics or {})
    return {"label": pick.label, "area_um2": m.area_um2, "delay_ns": m.delay_ns, "power_mw": m.power_mw,
            "cost": scorer(m)}


def selection(design_yaml: Path, run_dir: Path) -> dict | None:
    """Choosing among the Phase-1 answers, no search: the best valid Phase-1 candidate at the default
    recipe (the annealer starts from it, so annealed vs this is what the search itself adds)."""
    from hyperheurist.flow import Scorer
    from hyperheurist.recipe import load_flow

    design = load_design(design_yaml)
    valid = phase1_valid(run_dir)
    if not valid:
        return None
    scorer = Scorer(design, load_flow(design.ppa.flow))
    scorer.baseline = PPAMetrics.from_dict(read_json(run_dir / "initial" / "ppa.json")["metrics"])
    # rounded as the flow rounds costs
    costed = [(round(scorer(PPAMetrics.from_dict(r.evaluation.metrics or {})), 9), r) for r in valid]
    cost, best = min(costed, key=lambda cr: cr[0])  # min keeps the first of equals
    m = best.evaluation.metrics or {}
    return {"label": best.label, "area_um2": m["area_um2"], "delay_ns": m["delay_ns"], "power_mw": m["power_mw"],
            "cost": cost, "candidates": len(valid)}


def _mean_std(xs: list[float]) -> tuple[float, float] | None:
    if not xs:
        return None
    mean = sum(xs) / len(xs)
    return mean, (sum((x - mean) ** 2 for x in xs) / len(xs)) ** 0.5


def selection_vs_search(entries: list[dict]) -> list[dict]:
    """Per benchmark: baseline (first valid seed), selection (best Phase-1 seed, default recipe), annealed
    (search), reference; the selection's gain over the baseline and the annealer's own gain over the selection."""
    rows = []
    for name in sorted({e["benchmark"] for e in entries}):
        es = [e for e in entries if e["benchmark"] == name and e.get("selection")]
        summaries = [RunSummary.read(e["summary"]) for e in es]
        base = [s.initial.cost if s.initial and s.initial.cost is not None else float("nan") for s in summaries]
        sel = [e["selection"]["cost"] for e in es]
        ann = [s.best.cost if s.best and s.best.cost is not None else float("nan") for s in summaries]
        ref = next((e["reference"]["cost"] for e in es if e.get("reference")), None)
        rows.append({
            "benchmark": name, "seeds": len(es), "baseline": _mean_std(base), "selection": _mean_std(sel),
            "annealed": _mean_std(ann), "reference": ref,
            "selection_gain_pct": _mean_std([round(100 * (b - s) / b, 6) for b, s in zip(base, sel, strict=True) if b]),
            "annealer_gain_pct": _mean_std([round(100 * (s - a) / s, 6) for s, a in zip(sel, ann, strict=True) if s]),
            "annealer_improved_runs": sum(a < s - 1e-9 for s, a in zip(sel, ann, strict=True)),
            "valid_phase1": [e["selection"]["candidates"] for e in es],
        })
    return rows


def selection_markdown(rows: list[dict]) -> str:
    def ms(x: tuple[float, float] | None, digits: int = 4) -> str:
        return "n/a" if x is None else f"{x[0]:.{digits}g} ± {x[1]:.2g}"

    def pct(x: tuple[float, float] | None) -> str:
        return "n/a" if x is None else f"{x[0]:.1f} ± {x[1]:.1f}"

    out = ["", "## Selection vs search", "",
           ("Costs on each run's baseline normalisation (lower is better). *baseline*: the first valid Phase-1 "
            "candidate; *selection*: the best valid Phase-1 candidate at the default recipe (choosing among "
            "seeds, no search; the annealer starts from it); *annealed*: the search's best; *annealer gain*: "
            "annealed vs selection, the annealer's own contribution."), "",
           ("| benchmark | seeds | baseline cost | selection cost | annealed cost | reference cost | selection gain % "
            "| annealer gain % | runs the annealer improved |"),
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        ref = "n/a" if r["reference"] is None else f"{r['reference']:.4g}"
        out.append(f"| {r['benchmark']} | {r['seeds']} | {ms(r['baseline'])} | {ms(r['selection'])} | "
                   f"{ms(r['annealed'])} | {ref} | {pct(r['selection_gain_pct'])} | {pct(r['annealer_gain_pct'])} | "
                   f"{r['annealer_improved_runs']}/{r['seeds']} |")
    ratios = [r["annealed"][0] / r["selection"][0] for r in rows
              if r["annealed"] and r["selection"] and r["selection"][0]]
    if ratios:
        g = 1.0
        for x in ratios:
            g *= x
        out += ["", (f"Geometric mean of annealed/selection cost: {g ** (1 / len(ratios)):.4f} over {len(ratios)} "
                     "benchmark(s) (below 1: the search improves on the best Phase-1 seed).")]
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=None, help="override anneal.iterations")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--benchmarks", default="", help="comma-separated subset")
    ap.add_argument("--out", type=Path, default=REPO / "results")
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--executor", choices=["local", "ray"], default="local",
                    help="local: JOBS runs at a time here; ray: one task per run on a Ray cluster")
    ap.add_argument("--ray-address", default=None, help="Ray cluster address (default: RAY_ADDRESS, else a local Ray)")
    ap.add_argument("--aggregate-only", action="store_true",
                    help="run nothing: rebuild the tables from the runs already under OUT/runs")
    args = ap.parse_args()
    args.out = args.out.resolve()  # Ray workers may start in another folder

    names = [b for b in args.benchmarks.split(",") if b] or sorted(
        p.parent.name for p in (REPO / "benchmarks").glob("*/design.yaml"))
    args.out.mkdir(parents=True, exist_ok=True)
    jobs = [(REPO / "benchmarks" / n / "design.yaml", s) for n in names for s in range(1, args.seeds + 1)]
    t0 = time.monotonic()
    print(f"sweep: {len(names)} benchmarks x {args.seeds} seeds = {len(jobs)} runs, {args.jobs} at a time", flush=True)

    def work(job: tuple[Path, int]) -> dict:
        yaml_path, seed = job
        res = run_one(yaml_path, seed, args.iterations, args.out, args.timeout)
        name = yaml_path.parent.name
        status = "ok" if res["ok"] else f"FAILED rc={res['rc']}: {' '.join(res['stderr'])}"
        print(f"  {name} seed {seed}: {status} ({res['wall_s']:.0f} s)", flush=True)
        res.update({"benchmark": name, "seed": seed, "design_yaml": str(yaml_path)})
        return res

    previous = read_json(args.out / "sweep.json") if (args.out / "sweep.json").is_file() else {}
    if args.aggregate_only:
        results = []
        for yaml_path, seed in jobs:
            res = existing_run(yaml_path, seed, args.out)
            res.update({"benchmark": yaml_path.parent.name, "seed": seed, "design_yaml": str(yaml_path)})
            results.append(res)
    elif args.executor == "ray":
        from hyperheurist.executors import make_executor

        def remote(job: tuple[Path, int]) -> dict:  # runs on a Ray worker (pickled by value)
            res = run_one(job[0], job[1], args.iterations, args.out, args.timeout)
            res.update({"benchmark": job[0].parent.name, "seed": job[1], "design_yaml": str(job[0])})
            return res

        def progress(_i: int, res: dict) -> None:
            status = "ok" if res["ok"] else f"FAILED rc={res['rc']}: {' '.join(res['stderr'])}"
            print(f"  {res['benchmark']} seed {res['seed']}: {status} ({res['wall_s']:.0f} s)", flush=True)

        ex = make_executor("ray", args.jobs, address=args.ray_address)
        try:
            results = ex.map(remote, jobs, progress=progress)
        finally:
            ex.shutdown()
    else:
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(work, jobs))

    entries = []
    refs: dict[str, dict | None] = {}
    for res in results:
        if not res["ok"]:
            continue
        name = res["benchmark"]
        if name not in refs:
            refs[name] = reference_ppa(Path(res["design_yaml"]), Path(res["run_dir"]))
        entries.append({"benchmark": name, "seed": res["seed"], "summary": res["summary"], "reference": refs[name],
                        "single_pass": single_pass(Path(res["design_yaml"]), Path(res["run_dir"]), res["seed"]),
                        "selection": selection(Path(res["design_yaml"]), Path(res["run_dir"]))})
    failed = [f"{r['benchmark']}/s{r['seed']}" for r in results if not r["ok"]]

    from hyperheurist.report import aggregate, write_sweep

    agg = aggregate(entries)
    agg["failed_runs"] = failed
    agg["wall_s"] = previous.get("wall_s") if args.aggregate_only else round(time.monotonic() - t0, 1)
    agg["settings"] = {"seeds": args.seeds, "iterations": args.iterations, "jobs": args.jobs}
    agg["selection_vs_search"] = selection_vs_search(entries)
    write_sweep(args.out, agg)
    with open(args.out / "sweep.md", "a", encoding="utf-8") as fh:  # the report module writes the main table
        fh.write(selection_markdown(agg["selection_vs_search"]))
    print((args.out / "sweep.md").read_text())
    print(f"sweep: {len(entries)}/{len(jobs)} runs ok in {agg['wall_s'] or 0:.0f} s; results in {args.out}")
    if failed:
        print(f"sweep: failed runs: {', '.join(failed)}", file=sys.stderr)
    json.dumps(agg)  # fail loudly here rather than in a later reader if something is not serialisable
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
