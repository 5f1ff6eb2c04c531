"""Yosys 0.23 (Debian, the default) against Yosys 0.70 (PyPI pyosys), quality and time side by side.

hh's own synthesis stage (the default flow recipe, the same script and netlist reading) runs under
both; 0.70 also runs with its ``booth`` pass (Booth-encoded multipliers) inserted before ``alumacc``.
Every netlist is measured the way hh measures it: area from the cell histogram and the liberty,
delay from OpenSTA on the design's SDC. Designs: a size series (multipliers, adders) and the eight
benchmark references. pyosys ships libyosys and yosys-abc but no ``yosys`` executable, so a script
runs through ``libyosys.run_pass`` in a child Python (through run_tool, sandboxed).

    python tools/yosys_compare.py --setup          # one-off: a venv with pyosys==0.70 (runs/.pyosys)
    python tools/yosys_compare.py [--out results]  # writes results/yosys.md and results/yosys.json
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hyperheurist.candidate import Candidate
from hyperheurist.config import DesignConfig, load_design
from hyperheurist.errors import ToolError
from hyperheurist.estimate import ppa_context
from hyperheurist.gates.vetting import SafetyStage
from hyperheurist.jsonio import write_json
from hyperheurist.ppa.sta import StaStage
from hyperheurist.ppa.synth import SynthesisStage
from hyperheurist.recipe import load_flow
from hyperheurist.stages.context import StageContext
from hyperheurist.stages.model import Invocation, Plan, Request, StageId, StageResult
from hyperheurist.stages.runner import StageRunner

VENV = REPO / "runs" / ".pyosys"
PYOSYS = "0.70"
RUN_PASS = "import sys\nfrom pyosys import libyosys as ys\nys.run_pass('script synth.ys', ys.Design())\n"
SERIES = [("mult", n) for n in (8, 12, 16, 24)] + [("add", n) for n in (32, 64)]


def setup() -> None:
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run([str(VENV / "bin" / "pip"), "install", "-q", f"pyosys=={PYOSYS}"], check=True)


def series_design(kind: str, n: int, root: Path) -> tuple[DesignConfig, Path]:
    """A generated operator design (a*b or a+b on n bits) with its design.yaml."""
    d = root / f"{kind}{n}"
    d.mkdir(parents=True, exist_ok=True)
    top = f"{kind}{n}"
    w = 2 * n if kind == "mult" else n + 1
    op = "*" if kind == "mult" else "+"
    (d / "rtl.v").write_text(f"module {top}(input [{n - 1}:0] a, b, output [{w - 1}:0] y);\n"
                             f"  assign y = a {op} b;\nendmodule\n")
    (d / "spec.md").write_text(f"{top}: y = a {op} b\n")
    cfg = {"name": top, "top": top, "spec": "spec.md",
           "interface": {"ports": [{"name": "a", "dir": "input", "width": n}, {"name": "b", "dir": "input", "width": n},
                                   {"name": "y", "dir": "output", "width": w}]},
           "verification": {"reference": "rtl.v"}, "ppa": {"clock_period_ns": 10.0}}
    (d / "design.yaml").write_text(yaml.safe_dump(cfg))
    return load_design(d / "design.yaml"), d / "rtl.v"


class VariantSynthesis:
    """hh's own synthesis stage (same script, same interpretation of the netlist), its Yosys swapped:
    0.23 runs as hh runs it; 0.70 runs the same script through pyosys; 0.70-booth adds ``booth``."""

    def __init__(self, variant: str) -> None:
        self.variant = variant
        self.inner = SynthesisStage()
        self.id, self.inputs, self.outputs, self.config = (self.inner.id, self.inner.inputs, self.inner.outputs,
                                                             self.inner.config)

    def skip_reason(self, ctx: StageContext) -> str | None:
        return None

    def _swap(self, req: Request) -> Request:
        if self.variant == "0.23" or not isinstance(req, Invocation) or req.name != "yosys":
            return req
        files = dict(req.files)
        if self.variant == "0.70-booth":
            files["synth.ys"] = files["synth.ys"].replace("\nalumacc\n", "\nbooth\nalumacc\n", 1)
            assert "\nbooth\n" in files["synth.ys"]
        return replace(req, name="pyosys", argv=(str(VENV / "bin" / "python"), "-c", RUN_PASS), files=files,
                       readable=(*req.readable, VENV))

    def plan(self, ctx: StageContext) -> Plan:
        inner = self.inner.plan(ctx)
        try:
            req = next(inner)
            while True:
                req = inner.send((yield self._swap(req)))
        except StopIteration as stop:
            result: StageResult = stop.value
            return result


def synth(design: DesignConfig, rtl: Path, variant: str, folder: Path) -> dict:
    cand = Candidate.from_paths([rtl], design.top)
    ctx = ppa_context(cand, design, load_flow(design.ppa.flow).recipe, "vectorless")
    pipeline = (SafetyStage(), VariantSynthesis(variant), StaStage())
    sta_error = None
    try:
        StageRunner(folder, ctx).run(pipeline)
    except ToolError as exc:  # e.g. OpenSTA 2019 cannot parse a construct the newer Yosys writes
        sta_error = str(exc).splitlines()[0]
    syn = ctx.results.get(StageId.SYNTHESIS)
    if syn is None or not syn.passed:
        return {"ok": False, "error": syn.message if syn else sta_error, "synth_s": round(syn.wall_s if syn else 0, 3)}
    sta = ctx.results.get(StageId.STA)
    delay = round(sta.details["delay_ns"], 3) if sta is not None and sta.passed else None
    return {"ok": True, "area_um2": round(syn.details["area_um2"], 1), "cells": syn.details["cells"],
            "delay_ns": delay, "sta_error": sta_error, "synth_s": round(syn.wall_s, 3)}


def designs(work: Path) -> list[tuple[str, DesignConfig, Path]]:
    out = []
    for kind, n in SERIES:
        d, rtl = series_design(kind, n, work / "series")
        out.append((f"{kind}{n}", d, rtl))
    for y in sorted((REPO / "benchmarks").glob("*/design.yaml")):
        d = load_design(y)
        if d.verification.reference is not None:
            out.append((y.parent.name, d, d.verification.reference))
    return out


def table(rows: list[dict]) -> str:
    head = ["| design | 0.23 area / delay / s | 0.70 area / delay / s | 0.70 booth area / delay / s "
            "| 0.70 vs 0.23 area | booth vs 0.23 area |",
            "|---|---|---|---|---|---|"]

    def cell(r: dict) -> str:
        if not r.get("ok"):
            return "failed"
        delay = f"{r['delay_ns']:.2f}" if r.get("delay_ns") is not None else "STA rejects netlist"
        return f"{r['area_um2']:.0f} / {delay} / {r['synth_s']:.2f}"

    def pct(a: dict, b: dict) -> str:
        return f"{100 * (b['area_um2'] / a['area_um2'] - 1):+.1f}%" if a.get("ok") and b.get("ok") else "-"

    for r in rows:
        v = r["variants"]
        head.append(f"| {r['design']} | {cell(v['0.23'])} | {cell(v['0.70'])} | {cell(v['0.70-booth'])} | "
                    f"{pct(v['0.23'], v['0.70'])} | {pct(v['0.23'], v['0.70-booth'])} |")
    return "\n".join(head)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--setup", action="store_true", help=f"create {VENV} with pyosys=={PYOSYS}")
    ap.add_argument("--out", type=Path, default=REPO / "results")
    a = ap.parse_args()
    if a.setup:
        setup()
        return 0
    if not (VENV / "bin" / "python").exists():
        print(f"yosys_compare: no pyosys venv at {VENV}; run with --setup first", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="yosys-compare-", dir=REPO / "runs"))
    rows = []
    for name, design, rtl in designs(work):
        v = {var: synth(design, rtl, var, work / name / var) for var in ("0.23", "0.70", "0.70-booth")}
        rows.append({"design": name, "variants": v})
        print(name, {k: (x.get("area_um2"), x.get("delay_ns"), x.get("synth_s")) for k, x in v.items()}, flush=True)
    ok = [r["variants"] for r in rows if all(x.get("ok") for x in r["variants"].values())]
    def ratio(k: str, m: str) -> float:
        return statistics.geometric_mean([x[k][m] / x["0.23"][m] for x in ok])

    gm = {k: ratio(k, "area_um2") for k in ("0.70", "0.70-booth")}
    tm = {k: ratio(k, "synth_s") for k in ("0.70", "0.70-booth")}
    a.out.mkdir(parents=True, exist_ok=True)
    write_json(a.out / "yosys.json", {"rows": rows, "area_geomean_vs_023": gm, "time_geomean_vs_023": tm})
    summary = (f"Geometric mean area vs 0.23 over {len(ok)} designs: 0.70 {gm['0.70']:.3f}, 0.70 with booth "
               f"{gm['0.70-booth']:.3f}; synthesis time vs 0.23: 0.70 {tm['0.70']:.2f}x, "
               f"booth {tm['0.70-booth']:.2f}x.")
    print(summary)
    (a.out / "yosys.md").write_text("# Yosys 0.23 vs 0.70 (python tools/yosys_compare.py)\n\n" + summary + "\n\n"
                                    "Area um2 (OSU018) / OpenSTA delay ns / synthesis wall s; same script and default "
                                    "recipe for all; the booth column inserts 0.70's `booth` pass before `alumacc`.\n\n"
                                    + table(rows) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
