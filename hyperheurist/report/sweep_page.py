"""``render_sweep``: sweep.html for a results folder written by tools/sweep.py; ``write_sweep``: all its files.

It reads ``sweep.json`` (the aggregate); when that is missing (a sweep still running or killed) it
rebuilds the aggregate from ``runs/<benchmark>/<run>/summary.json`` and says so on the page.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from html import escape
from pathlib import Path

from ..errors import InputError
from ..jsonio import as_dict, as_list, num, text, write_json, write_text_atomic
from ..record.summary import RunSummary
from .fmt import fnum, mean_std, pct, seconds
from .page import card, page, section, table
from .sweep import Entry, JsonObject, Sweep, aggregate, to_csv, to_markdown
from .sweep_chart import improvement_chart


def is_sweep_dir(path: Path) -> bool:
    """True for a folder holding sweep.json or sweep.csv, or a runs/ tree of summaries."""
    p = Path(path)
    return (p / "sweep.json").is_file() or (p / "sweep.csv").is_file() or any(p.glob("runs/*/*/summary.json"))


def _entries_from_runs(results: Path) -> list[Entry]:
    out: list[Entry] = []
    for s in sorted(results.glob("runs/*/*/summary.json")):
        try:
            summary = json.loads(s.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(summary, dict):
            out.append({"benchmark": s.parent.parent.name, "seed": RunSummary.read(summary).seed,
                        "summary": summary, "reference": None, "run_dir": str(s.parent)})
    return out


def load_sweep(results: Path) -> tuple[Mapping[str, object], list[str]]:
    """(aggregate, problems) for a results folder; ``InputError`` when there is nothing to show. The aggregate
    is sweep.json as read (a ``Sweep`` written by another version, or hand-edited: read defensively)."""
    results = Path(results)
    if not results.is_dir():
        raise InputError(f"{results}: not a directory")
    problems: list[str] = []
    path = results / "sweep.json"
    if path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(data, dict) and isinstance(data.get("benchmarks"), list):
                return data, problems
            problems.append("sweep.json: not a sweep aggregate (no 'benchmarks' list)")
        except (OSError, ValueError) as exc:
            problems.append(f"sweep.json: unreadable ({type(exc).__name__})")
    else:
        problems.append("sweep.json: not found (the sweep did not finish)")
    entries = _entries_from_runs(results)
    if not entries:
        raise InputError(f"{results}: no readable sweep.json and no runs/*/*/summary.json to aggregate")
    problems.append(f"aggregated from {len(entries)} run summaries under runs/; reference costs are unknown")
    return aggregate(entries), problems


def _cell(d: object, digits: int = 4) -> str:
    d = as_dict(d)
    return mean_std(d.get("mean"), d.get("std"), digits, missing="–")


def _run_link(results: Path, run_dir: str) -> str:
    """A relative link to a run's report.html when it sits under the results folder."""
    if not run_dir:
        return ""
    target = Path(run_dir) / "report.html"
    try:
        rel = os.path.relpath(target, results)
    except ValueError:
        return ""
    if rel.startswith("..") or not target.is_file():
        return escape(Path(run_dir).name)
    return f'<a href="{escape(rel)}">{escape(Path(run_dir).name)}</a>'


def _bench_table(rows: list[JsonObject]) -> str:
    body = []
    for r in rows:
        ref = as_dict(r.get("reference"))
        base, ann, p1 = as_dict(r.get("baseline")), as_dict(r.get("annealed")), as_dict(r.get("phase1"))
        imp = as_dict(r.get("improvement_pct"))
        cls = "good" if (num(imp.get("mean")) or 0) > 0 else ""
        body.append([
            escape(text(r.get("benchmark"))), fnum(r.get("n")), escape(_cell(base.get("cost"))),
            escape(_cell(as_dict(as_dict(r.get("single_pass")).get("cost")))),
            escape(_cell(ann.get("cost"))), escape(fnum(ref.get("cost"), missing="–")),
            f'<span class="{cls}">{escape(_cell(imp, 3))}</span>',
            escape(fnum(r.get("ratio_vs_reference"), missing="–")),
            escape(f"{fnum(p1.get('valid'), missing='–')}/{fnum(p1.get('candidates'), missing='–')}"),
            escape(fnum(as_dict(r.get("evaluations")).get("mean"), missing="–")),
            escape(seconds(as_dict(r.get("wall_s")).get("mean"), missing="–")),
        ])
    head = ["benchmark", "seeds", "baseline cost", "single-pass cost", "annealed cost (mean ± std)", "reference cost",
            "improvement %", "best / reference", "P1 valid / cand.", "evaluations", "wall / run"]
    return table(head, body, [False] + [True] * (len(head) - 1), raw=True)


def _ppa_table(rows: list[JsonObject]) -> str:
    body = []
    for r in rows:
        base, ann, ref = as_dict(r.get("baseline")), as_dict(r.get("annealed")), as_dict(r.get("reference"))
        cells = [text(r.get("benchmark"))]
        for k in ("area_um2", "delay_ns", "power_mw"):
            cells += [fnum(as_dict(base.get(k)).get("mean"), missing="–"), _cell(ann.get(k)),
                      fnum(ref.get(k), missing="–")]
        body.append(cells)
    head = ["benchmark"] + [f"{q} {side}" for q in ("area µm²", "delay ns", "power mW")
                            for side in ("baseline", "annealed", "reference")]
    return "<h3>Area, delay and power (means over seeds)</h3>" + table(head, body, [False] + [True] * 9)


def _runs_table(results: Path, rows: list[JsonObject]) -> str:
    body = []
    for r in rows:
        for run in as_list(r.get("runs")):
            run = as_dict(run)
            body.append([escape(text(r.get("benchmark"))), escape(text(run.get("seed"))),
                         fnum(run.get("baseline_cost")), fnum(run.get("best_cost")),
                         escape(pct(run.get("improvement_pct"), missing="–")),
                         _run_link(results, text(run.get("run_dir")))])
    if not body:
        return ""
    return ("<details><summary>Every run</summary>" +
            table(["benchmark", "seed", "baseline cost", "best cost", "improvement", "run"], body,
                  [False, True, True, True, True, False], raw=True) + "</details>")


def render_sweep_html(results: Path, agg: Mapping[str, object], problems: list[str]) -> str:
    rows = [as_dict(r) for r in as_list(agg.get("benchmarks"))]
    g = as_dict(agg.get("geomean"))
    failed = [text(f) for f in as_list(agg.get("failed_runs"))]
    cards = [card("Benchmarks", fnum(len(rows)), f"{fnum(agg.get('runs'), missing='?')} runs"),
             card("Best / baseline cost", fnum(g.get("ratio_vs_baseline"), missing="–"),
                  f"geometric mean over {fnum(g.get('benchmarks_vs_baseline'), missing='0')} benchmarks; "
                  "< 1 is better"),
             card("Best / reference cost", fnum(g.get("ratio_vs_reference"), missing="–"),
                  f"over {fnum(g.get('benchmarks_vs_reference'), missing='0')} benchmarks with a reference"),
             card("Failed runs", fnum(len(failed)), ", ".join(failed)[:120] or "none", "bad" if failed else ""),
             card("Sweep wall time", seconds(agg.get("wall_s"), missing="–"),
                  ", ".join(f"{k} {v}" for k, v in as_dict(agg.get("settings")).items() if v is not None))]
    body = []
    if problems:
        body.append(section("Incomplete sweep record", "<ul>" + "".join(f"<li>{escape(p)}</li>" for p in problems)
                            + "</ul>", cls="problems"))
    body.append(f'<div class="cards">{"".join(cards)}</div>')
    chart = improvement_chart(rows)
    body.append(section("Cost improvement per benchmark",
                        chart or '<p class="na">No benchmark has a baseline and a best cost.</p>',
                        '<p class="muted">Bars: mean over seeds of 100·(1 − best/baseline cost); whiskers: ± one '
                        "sample standard deviation; dots: single seeds; diamonds: the hand-written reference, "
                        "triangles: single-pass generation (one valid candidate, no search), both on the same "
                        "cost scale. Baseline = each run's initial design (cost 1).</p>"))
    body.append(section("Per benchmark", _bench_table(rows) if rows else '<p class="na">No benchmark rows.</p>',
                        _ppa_table(rows) if rows else "", _runs_table(results, rows)))
    defs = as_dict(agg.get("definitions"))
    if defs:
        body.append(section("Definitions", table(["quantity", "definition"], [[k, text(v)] for k, v in defs.items()])))
    return page("HyperHeurist sweep", f"{results.resolve()} · {len(rows)} benchmarks", body)


def render_sweep(results_dir: Path) -> Path:
    """Write ``results_dir/sweep.html`` and return its path."""
    results = Path(results_dir)
    agg, problems = load_sweep(results)
    out = results / "sweep.html"
    write_text_atomic(out, render_sweep_html(results, agg, problems))
    return out


def write_sweep(results_dir: Path, aggregated: Sweep) -> dict[str, Path]:
    """Write sweep.json, sweep.csv, sweep.md and sweep.html into ``results_dir``; return their paths."""
    d = Path(results_dir)
    d.mkdir(parents=True, exist_ok=True)
    out = {"json": d / "sweep.json", "csv": d / "sweep.csv", "md": d / "sweep.md"}
    write_json(out["json"], aggregated)
    write_text_atomic(out["csv"], to_csv(aggregated))
    write_text_atomic(out["md"], to_markdown(aggregated))
    out["html"] = render_sweep(d)
    return out
