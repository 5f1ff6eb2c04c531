"""make qor: the QoR suite of suboptimal/hand-optimised pairs (benchmarks/qor/<pair>/).

Per pair: prove slow.v == fast.v (``hyperheurist.rewrite.prove``: the formal engines, X-aware miter,
ABC &cec for combinational pairs, scorr+pdr from reset for sequential ones, bmc3 when no unbounded
proof comes), measure both with the flow's default recipe (the start scores 1.0), run ``hh run``
offline from slow.v, prove every RTL change the run accepted against slow.v, and report whether hh
reached the hand-optimised cost. Only a ``proven`` verdict counts; ``bounded`` is reported as such.
Also the distinct-netlist rate of the run (Phase-2 evaluations whose mapped netlist had not been seen
before in that run).

    python tools/qor.py [--pairs a,b] [--iterations N] [--out results]
    python tools/qor.py --distinct RUN_DIR [RUN_DIR ...]     # distinct-netlist rate of finished runs
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hyperheurist.candidate import Candidate
from hyperheurist.config import DesignConfig, load_design
from hyperheurist.jsonio import read_json, read_jsonl, write_json

SUITE = REPO / "benchmarks" / "qor"
REACH_TOL = 0.01  # hh "reaches" the hand version when its best cost is within 1% of the hand cost
NOTES = """Notes. Start and hand are measured at the flow's default recipe; hh also tunes the recipe, so an hh best
below the hand cost partly comes from recipe knobs (column "hh best via": the RTL move that made the best
design and the knobs changed from the default). Pairs and accepted RTL changes are proven against `slow.v` with
the formal engines (X-aware miter; ABC `&cec` for combinational pairs, `scorr`+`pdr` from reset for sequential
ones, `bmc3` to 24 cycles when no unbounded proof comes); only the verdict `proven` counts. hh runs offline,
seed 1, 2 chains, the iterations in each design.yaml (30), one evaluation job, on a shared loaded machine.
"""
SEQ_DEPTH = 24  # cycles bmc3 searches when no unbounded proof comes; a pair asks for more in its design.yaml


def prove(design: DesignConfig, gold: str, gate: str, workdir: Path) -> dict:
    """The verdict of ``gate`` against ``gold``: its kind, whether it counts (proven), engine and reason."""
    from hyperheurist.rewrite.prove import ProofTask, accepted, prove_rewrite

    eq = design.verification.equivalence
    task = ProofTask(gold, gate, design.top, design.interface, depth=max(SEQ_DEPTH, eq.depth), timeout_s=600,
                     reset_cycles=eq.reset_cycles, reset_inputs=dict(eq.reset_inputs),
                     compare_when=dict(eq.compare_when))
    v = prove_rewrite(task, workdir)
    return {"verdict": v.kind, "proven": accepted(v), "engine": v.engine, "reason": v.reason, "depth": v.depth}


def measure(design: DesignConfig, path: Path, workdir: Path) -> dict:
    from hyperheurist.ppa import estimate
    from hyperheurist.recipe import load_flow

    m = estimate(Candidate.from_paths([path], design.top), design, load_flow(design.ppa.flow).recipe, workdir)
    return m.to_dict()


def costed(design: DesignConfig, metrics: dict, baseline: dict) -> float:
    from hyperheurist.flow import Scorer
    from hyperheurist.ppa.metrics import PPAMetrics
    from hyperheurist.recipe import load_flow

    scorer = Scorer(design, load_flow(design.ppa.flow))
    scorer.baseline = PPAMetrics.from_dict(baseline)
    return scorer(PPAMetrics.from_dict(metrics))


def distinct_rate(run_dir: Path) -> dict:
    """Phase-2 evaluations, and how many yielded a mapped netlist not seen before in the run."""
    seen: set[str] = set()
    evals = distinct = reused = 0
    for r in read_jsonl(run_dir / "journal.jsonl"):
        if r.get("type") == "phase1":
            d = (((r.get("evaluation") or {}).get("metrics") or {}).get("details") or {}).get("netlist_digest")
            if d:
                seen.add(d)
        elif r.get("type") == "eval":
            evals += 1
            details = (r.get("metrics") or {}).get("details") or {}
            d = details.get("netlist_digest")
            reused += bool(details.get("netlist_reused"))
            if d and d not in seen:
                distinct += 1
                seen.add(d)
    return {"evaluations": evals, "distinct": distinct, "sta_skipped": reused,
            "rate": round(distinct / evals, 4) if evals else None}


def accepted_rtl(run_dir: Path) -> list[str]:
    """Digests of the RTL the run accepted (steps whose proposal changed the RTL), in order."""
    out: list[str] = []
    for r in read_jsonl(run_dir / "journal.jsonl"):
        if (r.get("type") == "step" and r.get("accepted") and r.get("proposal_digest") != r.get("parent_digest")
                and r["proposal_digest"] not in out):
            out.append(r["proposal_digest"])
    return out


def sources_of(run_dir: Path, digest: str) -> str:
    src = run_dir / "candidates" / digest[:12] / "src"
    files = sorted(src.glob("*.v")) + sorted(src.glob("*.sv"))
    if not files:
        raise FileNotFoundError(f"no sources for accepted candidate {digest[:12]} in {src}")
    return "\n".join(f.read_text(encoding="utf-8") for f in files)


def run_hh(design_yaml: Path, out: Path, iterations: int | None, timeout_s: float,
           moves: list[str] | None = None) -> tuple[Path | None, str]:
    argv = [sys.executable, "-m", "hyperheurist", "run", str(design_yaml), "--jobs", "1", "--quiet", "--out",
            str(out / "runs")]
    if iterations is not None:
        argv += ["--iterations", str(iterations)]
    if moves:
        argv += ["--set", f"anneal.moves=[{','.join(moves)}]"]
    env = {**os.environ, "HH_CACHE_DIR": str(out / "cache")}
    proc = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=timeout_s,
                          stdin=subprocess.DEVNULL, env=env)
    runs = sorted((out / "runs" / load_design(design_yaml).name).glob("*"), key=lambda p: p.stat().st_mtime)
    done = [r for r in runs if (r / "summary.json").is_file()]
    if proc.returncode != 0 or not done:
        return None, (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
    return done[-1], ""


def one_pair(pair: Path, out: Path, iterations: int | None, timeout_s: float,
             moves: list[str] | None = None) -> dict:
    design = load_design(pair / "design.yaml")
    work = Path(tempfile.mkdtemp(prefix=f"qor-{pair.name}-", dir=out))
    slow, fast = (pair / "slow.v").read_text(), (pair / "fast.v").read_text()
    row: dict = {"pair": pair.name, "class": design.description, "objective": design.ppa.objective}
    row["pair_proof"] = prove(design, slow, fast, work / "pair-proof")
    start = measure(design, pair / "slow.v", work / "start")
    hand = measure(design, pair / "fast.v", work / "hand")
    row["start"] = _point(start, 1.0 if start else None)
    row["hand"] = _point(hand, costed(design, hand, start))
    t0 = time.monotonic()
    run_dir, err = run_hh(pair / "design.yaml", out, iterations, timeout_s, moves)
    row["wall_s"] = round(time.monotonic() - t0, 1)
    if run_dir is None:
        row.update(hh=None, error=err)
        return row
    summary = read_json(run_dir / "summary.json")
    best = summary["best"]
    # the run's baseline is its first valid candidate, slow.v at the default recipe: the same start
    row["hh"] = _point(best, best["cost"])
    row["hh"]["move"], row["hh"]["recipe"] = best.get("move"), best.get("recipe")
    row["run_dir"] = str(run_dir)
    row["reached"] = row["hh"]["cost"] <= row["hand"]["cost"] * (1 + REACH_TOL)
    row["distinct"] = distinct_rate(run_dir)
    proofs = []
    for i, dg in enumerate(accepted_rtl(run_dir)):
        p = prove(design, slow, sources_of(run_dir, dg), work / f"accepted-{i:02d}")
        proofs.append({"digest": dg[:12], **p})
    row["accepted_rtl"] = proofs
    row["all_proven"] = all(p["proven"] for p in proofs)
    return row


def _point(m: dict, cost: float | None) -> dict:
    return {"area_um2": m.get("area_um2"), "delay_ns": m.get("delay_ns"), "power_mw": m.get("power_mw"),
            "cost": None if cost is None else round(cost, 4)}


def _fmt(p: dict | None) -> str:
    if not p:
        return "-"
    return f"{p['area_um2']:.0f} / {p['delay_ns']:.2f} / {p['power_mw']:.3f} / **{p['cost']:.3f}**"


def via(row: dict) -> str:
    """The move that made hh's best RTL and the recipe knobs it changed from the flow's default."""
    from hyperheurist.recipe import load_flow

    hh = row.get("hh") or {}
    default = load_flow(load_design(SUITE / row["pair"] / "design.yaml").ppa.flow).recipe.to_dict()
    knobs = [f"{k}={v}" for k, v in (hh.get("recipe") or {}).items() if default.get(k) != v]
    return ", ".join([f"`{hh.get('move') or 'start RTL'}`", *knobs])


def table(rows: list[dict]) -> str:
    lines = [("| pair | class | start A/D/P/cost | hand | hh best | reached | hh best via "
              "| RTL changes accepted (proven) | distinct netlists |"), "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        acc = r.get("accepted_rtl") or []
        d = r.get("distinct") or {}
        rate = f"{d['distinct']}/{d['evaluations']}" if d.get("evaluations") else "-"
        proof = "" if r["pair_proof"]["proven"] else f" (pair {r['pair_proof']['verdict']}, not proven)"
        lines.append(f"| {r['pair']}{proof} | {r['class']} | {_fmt(r['start'])} | {_fmt(r['hand'])} | "
                     f"{_fmt(r.get('hh')) if r.get('hh') else 'failed: ' + r.get('error', '')} | "
                     f"{'yes' if r.get('reached') else 'no'} | {via(r) if r.get('hh') else '-'} | "
                     f"{len(acc)} ({sum(p['proven'] for p in acc)}) | {rate} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", help="comma-separated pair names (default: all of benchmarks/qor)")
    ap.add_argument("--iterations", type=int, default=None,
                    help="annealing iterations per chain (default: design.yaml)")
    ap.add_argument("--out", type=Path, default=REPO / "results")
    ap.add_argument("--work", type=Path, default=REPO / "runs" / "qor")
    ap.add_argument("--timeout", type=float, default=1800.0)
    ap.add_argument("--distinct", type=Path, nargs="+", help="print the distinct-netlist rate of these runs")
    ap.add_argument("--table-only", action="store_true", help="re-render <out>/<name>.md from <out>/<name>.json")
    ap.add_argument("--moves", help="comma-separated anneal.moves for every run ('recipes' = every recipe knob "
                                    "move), e.g. egraph_rewrite,recipes: what a subset of the moves reaches")
    ap.add_argument("--name", default="qor", help="report name: <out>/<name>.md and <out>/<name>.json")
    a = ap.parse_args()
    if a.distinct:
        for d in a.distinct:
            print(d, json.dumps(distinct_rate(d)))
        return 0
    if a.table_only:
        rows = read_json(a.out / f"{a.name}.json")["rows"]
        write_report(a.out, rows, a.name, read_json(a.out / f"{a.name}.json").get("moves"))
        return 0
    pairs = sorted(p for p in SUITE.iterdir() if (p / "design.yaml").is_file())
    if a.pairs:
        want = set(a.pairs.split(","))
        unknown = want - {p.name for p in pairs}
        if unknown:
            print(f"qor: unknown pair(s): {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        pairs = [p for p in pairs if p.name in want]
    a.work.mkdir(parents=True, exist_ok=True)
    moves = expand_moves(a.moves) if a.moves else None
    rows = []
    for p in pairs:
        r = one_pair(p, a.work.resolve(), a.iterations, a.timeout, moves)
        rows.append(r)
        print(f"{r['pair']:15s} hand {r['hand']['cost']:.3f} hh {r['hh']['cost'] if r.get('hh') else 'failed'} "
              f"reached={r.get('reached')} proven={r.get('all_proven')} distinct={r.get('distinct')}", flush=True)
    write_report(a.out, rows, a.name, moves)
    return 0


def expand_moves(spec: str) -> list[str]:
    from hyperheurist.search.moves import recipe_moves

    out: list[str] = []
    for name in (s.strip() for s in spec.split(",") if s.strip()):
        out += [m.name for m in recipe_moves()] if name == "recipes" else [name]
    return out


def write_report(out: Path, rows: list[dict], name: str = "qor", moves: list[str] | None = None) -> None:
    reached = sum(bool(r.get("reached")) for r in rows)
    accepted = sum(len(r.get("accepted_rtl") or []) for r in rows)
    proven = sum(sum(p["proven"] for p in r.get("accepted_rtl") or []) for r in rows)
    evals = sum((r.get("distinct") or {}).get("evaluations") or 0 for r in rows)
    distinct = sum((r.get("distinct") or {}).get("distinct") or 0 for r in rows)
    head = (f"hh reached the hand-optimised cost (within {REACH_TOL:.0%}) on **{reached}/{len(rows)}** pairs; "
            f"{proven}/{accepted} accepted RTL changes proven equivalent to the start; "
            f"{distinct}/{evals} Phase-2 evaluations yielded a distinct netlist.")
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / f"{name}.json", {"rows": rows, "reached": reached, "pairs": len(rows), "moves": moves})
    if moves:
        head += f" Moves restricted to: {', '.join(f'`{m}`' for m in moves)}."
    legend = "A/D/P = area um2 / delay ns / power mW; cost under each pair's objective (the start scores 1.0)."
    (out / f"{name}.md").write_text(f"# QoR suite (make qor)\n\n{head}\n\n{legend}\n\n{table(rows)}\n\n{NOTES}",
                                encoding="utf-8")
    print(head)


if __name__ == "__main__":
    sys.exit(main())
