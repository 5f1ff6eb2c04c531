"""make qor: the QoR suite of suboptimal/hand-optimised pairs (benchmarks/qor/<pair>/).

Per pair: prove slow.v == fast.v (``hyperheurist.rewrite.prove``: the formal engines, X-aware miter,
ABC &cec for combinational pairs, scorr+pdr from reset for sequential ones, bmc3 when no unbounded
proof comes), measure both with the flow's default recipe (the start scores 1.0), run ``hh run``
offline from slow.v, prove every RTL change the run accepted against slow.v, and report whether hh
reached the hand-optimised cost. Only a ``proven`` verdict counts; ``bounded`` is reported as such.
Also the distinct-netlist rate of the run (Phase-2 evaluations whose mapped netlist had not been seen
before in that run).

The suite is split into a development half and a blind half (``benchmarks/qor/split.txt``, rule in
docs/qor.md): the blind half is run only to report. ``--split`` runs one half; the rows of pairs not run
are kept from the previous report (labelled with when they were measured), and the report gives the
figures of each half separately.

    python tools/qor.py [--split dev|blind|all] [--pairs a,b] [--iterations N] [--out results]
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
from hyperheurist.record.entries import EvalRecord, JournalRecord, Phase1Record, StepRecord, parse_record
from hyperheurist.record.summary import RunSummary

SUITE = REPO / "benchmarks" / "qor"
SPLIT_FILE = SUITE / "split.txt"
HALVES = ("dev", "blind")
REACH_TOL = 0.01  # hh "reaches" the hand version when its best cost is within 1% of the hand cost
NOTES = """Notes. Start and hand are measured at the flow's default recipe; hh also tunes the recipe, so an hh best
below the hand cost partly comes from recipe knobs (column "hh best via": the RTL move that made the best
design and the knobs changed from the default). Pairs and accepted RTL changes are proven against `slow.v` with
the formal engines (X-aware miter; ABC `&cec` for combinational pairs, `scorr`+`pdr` from reset for sequential
ones, `bmc3` to 24 cycles when no unbounded proof comes); only the verdict `proven` counts. hh runs offline,
seed 1, 2 chains, the iterations in each design.yaml (30) unless a half's "Measured" line names
--iterations, one evaluation job, on a shared loaded machine. A pair whose hh run failed scores 1.0 (its start)
in the geometric mean.
"""
SEQ_DEPTH = 24  # cycles bmc3 searches when no unbounded proof comes; a pair asks for more in its design.yaml


# the pairs of the suite before the split: rules were written against them, so they are all development pairs
ORIGINAL = ("absdiff", "const_mul", "cse_sum", "dead_acc", "decoder_shift", "factor_mul", "fsm_onehot", "mult_chain",
            "mux_addsub", "mux_share_add", "mux_share_cmp", "popcount", "reassoc_cmp", "reassoc_const", "width_counter")


# a second batch, written by the engineer who wrote the rule they exercise (function_recognition): dev by
# construction, and kept out of the class rotation so that no earlier pair changes half
SECOND = ("fr_absdiff_loop", "fr_hamming_loop", "fr_tzc_loop")

# a third batch (issue 30, phase-2 rules): each pair written by the engineer who wrote the rules it exercises, before
# any hh run on it; dev by construction and kept out of the class rotation like the second batch. Sessions append.
THIRD = ("ps_alu_incdec", "ps_both_inc", "ps_cmp_branch", "ps_mac_double", "ps_prod_assoc", "ps_prod_minus_one",
         "ps_sub_common", "ro_axis_skid", "ro_pipe_add", "ro_valid_delay",
         "fc_count_thresh_loop", "fc_found_any_loop", "fc_onehot_loop", "fc_seq_multi_loop", "fc_zero_count_loop")


def split_rule(classes: dict[str, str]) -> dict[str, str]:
    """The half of each pair (name -> class), by the rule fixed before any measurement: the original pairs and
    the second and third batches are 'dev'; the other pairs of each class, in name order, go blind, blind, dev, blind,
    blind, dev, ..."""
    out = {n: "dev" for n in classes if n in ORIGINAL or n in SECOND or n in THIRD}
    by_class: dict[str, list[str]] = {}
    for n in sorted(classes):
        if n not in ORIGINAL and n not in SECOND and n not in THIRD:
            by_class.setdefault(classes[n], []).append(n)
    for names in by_class.values():
        out.update({n: "dev" if i % 3 == 2 else "blind" for i, n in enumerate(names)})
    return out


def load_split(path: Path = SPLIT_FILE) -> dict[str, str]:
    """Pair name -> 'dev' or 'blind', from the list file (``<pair> <half>`` a line, ``#`` comments)."""
    out: dict[str, str] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) != 2 or words[1] not in HALVES or words[0] in out:
            raise ValueError(f"{path}:{n}: expected '<pair> dev|blind' once per pair, got {line.strip()!r}")
        out[words[0]] = words[1]
    return out


def prove(design: DesignConfig, gold: str, gate: str, workdir: Path) -> dict:
    """The verdict of ``gate`` against ``gold``: its kind, whether it counts (proven), engine and reason."""
    from hyperheurist.rewrite.prove import ProofTask, accepted, prove_rewrite

    depth = max(SEQ_DEPTH, design.verification.equivalence.depth)
    v = prove_rewrite(ProofTask.for_design(gold, gate, design, depth=depth, timeout_s=600), workdir)
    return {"verdict": v.kind, "proven": accepted(v), "engine": v.engine, "reason": v.reason, "depth": v.depth}


def measure(design: DesignConfig, path: Path, workdir: Path) -> dict:
    from hyperheurist.estimate import estimate
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


def journal_records(run_dir: Path) -> list[JournalRecord]:
    """The run's journal, each line parsed into its typed record (``hyperheurist.record.entries``)."""
    return [parse_record(obj) for obj in read_jsonl(run_dir / "journal.jsonl")]


def distinct_rate(run_dir: Path) -> dict:
    """Phase-2 evaluations, and how many yielded a mapped netlist not seen before in the run."""
    seen: set[str] = set()
    evals = distinct = reused = 0
    for r in journal_records(run_dir):
        if isinstance(r, Phase1Record):
            details = (r.evaluation.metrics or {}).get("details")
            d = details.get("netlist_digest") if isinstance(details, dict) else None
            if isinstance(d, str) and d:
                seen.add(d)
        elif isinstance(r, EvalRecord):
            evals += 1
            details = (r.metrics or {}).get("details")
            details = details if isinstance(details, dict) else {}
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
    for r in journal_records(run_dir):
        if (isinstance(r, StepRecord) and r.accepted and r.proposal_digest
                and r.proposal_digest != r.parent_digest and r.proposal_digest not in out):
            out.append(r.proposal_digest)
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
    best = RunSummary.read(read_json(run_dir / "summary.json")).best
    if best is None or best.cost is None:
        row.update(hh=None, error=f"{run_dir}/summary.json records no best design")
        return row
    # the run's baseline is its first valid candidate, slow.v at the default recipe: the same start
    row["hh"] = _point(best.to_json(), best.cost)
    row["hh"]["move"], row["hh"]["recipe"] = best.move, best.recipe
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
    ap.add_argument("--split", choices=(*HALVES, "all"), default="all",
                    help="run the development half, the blind half or all pairs (benchmarks/qor/split.txt)")
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
    ap.add_argument("--fresh", action="store_true",
                    help="report only the pairs run now (default: keep the previous rows of the other pairs)")
    a = ap.parse_args()
    if a.distinct:
        for d in a.distinct:
            print(d, json.dumps(distinct_rate(d)))
        return 0
    if a.table_only:
        rows = read_json(a.out / f"{a.name}.json")["rows"]
        write_report(a.out, rows, a.name, read_json(a.out / f"{a.name}.json").get("moves"))
        return 0
    try:
        split = load_split()
    except (OSError, ValueError) as e:
        print(f"qor: {e}", file=sys.stderr)
        return 2
    pairs = sorted(p for p in SUITE.iterdir() if (p / "design.yaml").is_file())
    missing = sorted({p.name for p in pairs} ^ set(split))
    if missing:
        print(f"qor: {SPLIT_FILE}: pair(s) without a folder or without a half: {', '.join(missing)}", file=sys.stderr)
        return 2
    if a.split != "all":
        pairs = [p for p in pairs if split[p.name] == a.split]
    if a.pairs:
        want = set(a.pairs.split(","))
        unknown = want - {p.name for p in pairs}
        if unknown:
            print(f"qor: unknown pair(s) (in --split {a.split}): {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        pairs = [p for p in pairs if p.name in want]
    a.work.mkdir(parents=True, exist_ok=True)
    moves = expand_moves(a.moves) if a.moves else None
    rows = []
    for p in pairs:
        r = one_pair(p, a.work.resolve(), a.iterations, a.timeout, moves)
        r["split"] = split[p.name]  # stamped when the pair is done: the report's range spans the run
        r["measured"] = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": _head(),
                         "iterations": a.iterations}
        rows.append(r)
        print(f"{r['pair']:15s} hand {r['hand']['cost']:.3f} hh {r['hh']['cost'] if r.get('hh') else 'failed'} "
              f"reached={r.get('reached')} proven={r.get('all_proven')} distinct={r.get('distinct')}", flush=True)
    prev = a.out / f"{a.name}.json"
    if not a.fresh and prev.is_file() and read_json(prev).get("moves") == moves:
        done = {r["pair"] for r in rows}
        rows += [{**r, "split": split[r["pair"]]} for r in read_json(prev)["rows"]
                 if r["pair"] in split and r["pair"] not in done]
    write_report(a.out, sorted(rows, key=lambda r: r["pair"]), a.name, moves)
    return 0


def _head() -> str:
    proc = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], check=False,
                          capture_output=True, text=True, timeout=30)
    return proc.stdout.strip() or "unknown"


def expand_moves(spec: str) -> list[str]:
    from hyperheurist.search.moves import recipe_moves

    out: list[str] = []
    for name in (s.strip() for s in spec.split(",") if s.strip()):
        out += [m.name for m in recipe_moves()] if name == "recipes" else [name]
    return out


def half_summary(rows: list[dict]) -> dict:
    """The figures of one half: pairs measured, reached the hand cost, geometric means, accepted RTL proven.

    A pair whose hh run failed scores its start (1.0) in the geometric mean of hh best/start."""
    measured = [r for r in rows if r.get("hand")]
    acc = [p for r in measured for p in r.get("accepted_rtl") or []]
    evals = sum((r.get("distinct") or {}).get("evaluations") or 0 for r in measured)
    return {"pairs": len(measured), "reached": sum(bool(r.get("reached")) for r in measured),
            "geomean_best": _geomean([(r.get("hh") or {}).get("cost") or 1.0 for r in measured]),
            "geomean_hand": _geomean([r["hand"]["cost"] for r in measured]),
            "accepted_rtl": len(acc), "proven": sum(bool(p["proven"]) for p in acc),
            "evaluations": evals, "distinct": sum((r.get("distinct") or {}).get("distinct") or 0 for r in measured),
            "pairs_proven": sum(bool(r["pair_proof"]["proven"]) for r in measured)}


def _geomean(xs: list[float]) -> float | None:
    import math

    return round(math.exp(sum(math.log(x) for x in xs) / len(xs)), 4) if xs else None


def _when(rows: list[dict]) -> str:
    """When the rows were measured: date range, commits and iterations of the stamped rows; unstamped rows."""
    stamps = [r["measured"] for r in rows if r.get("measured")]
    parts = []
    if stamps:
        dates = sorted(m["date"] for m in stamps)
        its = sorted({f"--iterations {m['iterations']}" if m.get("iterations") else "design.yaml iterations"
                      for m in stamps})
        parts.append(f"{len(stamps)} pair(s) {dates[0]} to {dates[-1]}, commit(s) "
                     f"{', '.join(sorted({m['commit'] for m in stamps}))}, {', '.join(its)}")
    old = len(rows) - len(stamps)
    if old:
        parts.append(f"{old} pair(s) from an earlier run before the split (not re-run)")
    return "; ".join(parts)


def write_report(out: Path, rows: list[dict], name: str = "qor", moves: list[str] | None = None) -> None:
    halves = {h: [r for r in rows if r.get("split", "dev") == h] for h in HALVES}
    summary = {h: half_summary(rs) for h, rs in halves.items()}
    try:
        split = load_split()
    except (OSError, ValueError):
        split = {}
    for h, s in summary.items():
        s["in_half"] = sum(v == h for v in split.values()) or s["pairs"]
    out.mkdir(parents=True, exist_ok=True)
    reached = sum(s["reached"] for s in summary.values())
    write_json(out / f"{name}.json", {"rows": rows, "reached": reached, "pairs": len(rows), "moves": moves,
                                      "halves": summary})
    parts = ["# QoR suite (make qor)", ""]
    parts.append("Two halves (benchmarks/qor/split.txt, rule in docs/qor.md): the **blind** half is run only "
                 "to report, never to decide a rule; the **dev** half holds the pairs rules may be written against.")
    if moves:
        parts.append(f"Moves restricted to: {', '.join(f'`{m}`' for m in moves)}.")
    parts += ["", "| half | pairs measured | reached hand cost (within 1%) | geomean hh best/start "
              "| geomean hand/start | accepted RTL changes proven | distinct netlists |",
              "|---|---|---|---|---|---|---|"]
    for h in ("blind", "dev"):
        s = summary[h]
        parts.append(f"| {h} | {s['pairs']}/{s['in_half']} | {s['reached']}/{s['pairs']} | {s['geomean_best']} | "
                     f"{s['geomean_hand']} | {s['proven']}/{s['accepted_rtl']} | {s['distinct']}/{s['evaluations']} |")
    legend = "A/D/P = area um2 / delay ns / power mW; cost under each pair's objective (the start scores 1.0)."
    parts += ["", legend]
    for h in ("blind", "dev"):
        if halves[h]:
            parts += ["", f"## {h} half", "", f"Measured: {_when(halves[h])}.", "", table(halves[h])]
    (out / f"{name}.md").write_text("\n".join(parts) + f"\n\n{NOTES}", encoding="utf-8")
    for h in ("blind", "dev"):
        s = summary[h]
        print(f"{h}: reached {s['reached']}/{s['pairs']}, geomean best/start {s['geomean_best']}, "
              f"{s['proven']}/{s['accepted_rtl']} accepted RTL changes proven")


if __name__ == "__main__":
    sys.exit(main())
