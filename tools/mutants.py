#!/usr/bin/env python3
"""Mutation battery of the equivalence gate (``make formal``): is every "equivalent" really equivalent?

Every ``benchmarks/*/reference.v`` is mutated one site at a time (code only, never comments):
stuck-at-0/1 on each output bit (a wrapper forces the bit), operator swaps (+ -, & |, ^ |, == !=,
< <=, > >=), off-by-one constants (n -> n+1), dropped reset assignments, inverted conditions
(``if (c)`` -> ``if (!(c))``). Sites other than stuck-at are sampled with a fixed seed, at most
``--per-op`` per kind and benchmark. Each mutant that compiles gets the formal verdict against the
reference (equivalence gate alone) and, independently, the differential simulation (``--cycles``
cycles, two seeds). An escape is a mutant the formal check calls equivalent (proven or bounded)
while simulation shows a difference: the goal is zero. Then the reference against itself and against
each valid seed (``seeds/ok_*.v``): verdict, engine and time.

Usage: .venv/bin/python tools/mutants.py [--per-op N] [--jobs J] [--benchmarks a,b] [--out results]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hyperheurist.candidate import Candidate
from hyperheurist.config import DesignConfig, load_design
from hyperheurist.errors import HHError
from hyperheurist.gating import run_gates

SWAPS = {"+": "-", "-": "+", "&": "|", "|": "&", "^": "|", "==": "!=", "!=": "==", "<": "<=", ">": ">="}
# a binary operator with operands around it (not <=/>= of assignments or comparisons, not && || << >>)
OPERATOR = re.compile(r"(?<=[\w\)\]\s])"
                      r"(==|!=|(?<![<>=!&|^~+\-])[+\-&|^](?![&|=+\-])|(?<![<>=])<(?![<=])|(?<![<>=-])>(?![>=]))"
                      r"(?=\s*[\w(~!{'])")
NUMBER = re.compile(r"(?<![\w$'.])(\d+)'([sS]?[dD])(\d+)|(?<![\w$'.])(\d+)(?![\w'.])")
IF = re.compile(r"\bif\s*\(")
ASSIGN = re.compile(r"[A-Za-z_][\w\[\]:+\- ]*\s*<=[^;]*;")
MODULE = re.compile(r"\bmodule\s+([A-Za-z_]\w*)")
KINDS = ("stuck", "operator", "constant", "reset", "condition")


def _close(code: str, start: int, opening: str = "(", closing: str = ")") -> int:
    depth = 0
    for i in range(start, len(code)):
        if code.startswith(opening, i):
            depth += 1
        elif code.startswith(closing, i):
            depth -= 1
            if depth == 0:
                return i
    return -1


def _line(code: str, at: int) -> int:
    return code.count("\n", 0, at) + 1


def stuck_at(text: str, top: str, design: DesignConfig) -> list[tuple[str, str]]:
    """A wrapper named ``top`` around the reference renamed ``<top>_hhcore`` forces one output bit."""
    core = re.sub(rf"\bmodule\s+{top}\b", f"module {top}_hhcore", text, count=1)
    ports = [p for p in design.interface.all_ports() if p.dir in ("input", "output")]
    out = []
    for p in design.interface.outputs():
        for bit in range(p.width):
            for value in (0, 1):
                decl = ", ".join(f"{p2.dir} wire [{p2.width - 1}:0] {p2.name}" for p2 in ports)
                conn = ", ".join(f".{p2.name}({p2.name if p2.dir == 'input' else 'hh_' + p2.name})" for p2 in ports)
                body = [f"module {top} ({decl});"]
                body += [f"  wire [{q.width - 1}:0] hh_{q.name};" for q in design.interface.outputs()]
                body.append(f"  {top}_hhcore hh_core ({conn});")
                for q in design.interface.outputs():
                    if q is p:
                        forced = [f"1'b{value}" if i == bit else f"hh_{q.name}[{i}]" for i in reversed(range(q.width))]
                        body.append(f"  assign {q.name} = {{{', '.join(forced)}}};")
                    else:
                        body.append(f"  assign {q.name} = hh_{q.name};")
                body.append("endmodule")
                out.append((f"stuck: {p.name}[{bit}]={value}", core + "\n" + "\n".join(body) + "\n"))
    return out


def _reset_drops(text: str, code: str, reset: str) -> list[tuple[str, str]]:
    """Drop one assignment inside an ``if (!rst_n)`` / ``if (rst)`` branch."""
    out = []
    for m in re.finditer(rf"\bif\s*\(\s*!?\s*{reset}\s*\)", code):
        body = code[m.end():]
        stripped = body.lstrip()
        start = m.end() + (len(body) - len(stripped))
        if stripped.startswith("begin"):
            end = _close(code, start, "begin", "end")
        else:
            end = code.find(";", start) + 1
        if end <= start:
            continue
        for a in ASSIGN.finditer(code, start, end):
            label = f"drop reset `{a.group(0)[:40]}` @{_line(code, a.start())}"
            out.append((label, text[: a.start()] + text[a.end():]))
    return out


# comments and string literals of a (trusted) reference, blanked so no mutation site falls inside one
_NOT_CODE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)


def blank_comments_and_strings(text: str) -> str:
    """``text`` with comments and strings replaced by spaces (same length, newlines kept)."""
    return _NOT_CODE.sub(lambda m: "".join(c if c == "\n" else " " for c in m.group(0)), text)


def mutants(text: str, design: DesignConfig, per_op: int, seed: int) -> list[tuple[str, str]]:
    """(label, mutated text) pairs."""
    code = blank_comments_and_strings(text)
    rng = random.Random(seed)
    sites: dict[str, list[tuple[str, str]]] = {k: [] for k in KINDS if k != "stuck"}
    for m in OPERATOR.finditer(code):
        op = m.group(1)
        if code[max(0, m.start() - 1)] in "[:" or op not in SWAPS:
            continue
        sites["operator"].append((f"op {op}->{SWAPS[op]} @{_line(code, m.start())}",
                                  text[: m.start()] + SWAPS[op] + text[m.end():]))
    for m in NUMBER.finditer(code):
        if m.group(3) is not None:
            width, base, val = m.group(1), m.group(2), int(m.group(3))
            rep = f"{width}'{base}{(val + 1) % (1 << int(width)) if int(width) < 64 else val + 1}"
        else:
            rep = str(int(m.group(4)) + 1)
        sites["constant"].append((f"const {m.group(0)}->{rep} @{_line(code, m.start())}",
                                  text[: m.start()] + rep + text[m.end():]))
    for m in IF.finditer(code):
        close = _close(code, m.end() - 1)
        if close > 0:
            sites["condition"].append((f"invert if @{_line(code, m.start())}",
                                       text[: m.end()] + "!(" + text[m.end(): close] + ")" + text[close:]))
    if design.interface.reset:
        sites["reset"] = _reset_drops(text, code, design.interface.reset.name)
    out = [(label, t) for label, t in stuck_at(text, design.top, design)]
    for kind, found in sites.items():
        rng.shuffle(found)
        out += [(f"{kind}: {label}", t) for label, t in found[:per_op]]
    return out


def _formal_design(yaml_path: str | Path, timeout_s: float) -> DesignConfig:
    """The design with the formal check on, against the reference, at the battery's CPU budget."""
    return load_design(yaml_path, {"verification.equivalence.against": "all",
                                   "verification.equivalence.timeout_s": timeout_s})


def _verdict(cand: Candidate, design: DesignConfig, wd: Path) -> dict:
    rep = run_gates(cand, design, wd, equivalence=True, only=["equivalence"])
    r = next(x for x in rep.results if x.gate == "equivalence")
    return {"verdict": r.details.get("verdict", "inconclusive"), "engine": r.details.get("engine", ""),
            "message": r.message, "wall_s": round(r.wall_s, 2)}


def _evaluate(job: tuple[str, str, str, str, int, float]) -> dict:
    yaml_path, label, text, work, cycles, timeout_s = job
    design = load_design(yaml_path)
    cand = Candidate.from_text(text, top=design.top, name="mutant.v")
    wd = Path(work) / cand.short
    row: dict = {"label": label}
    try:
        if not run_gates(cand, design, wd / "compile", only=["compile"]).passed:
            return {**row, "verdict": "invalid"}
        row.update(_verdict(cand, _formal_design(yaml_path, timeout_s), wd / "formal"))
        sim_diff = None
        for seed in (1, 2):
            sim_design = load_design(yaml_path, {"verification.cocotb": None,
                                                 "verification.differential.cycles": cycles,
                                                 "verification.differential.seed": seed})
            sim = run_gates(cand, sim_design, wd / f"sim{seed}", only=["simulation"])
            if not sim.passed and sim.failed is not None:
                sim_diff = sim.failed.message
                break
        row["simulation"] = sim_diff or "no difference"
        row["escape"] = row["verdict"] in ("proven", "bounded") and sim_diff is not None
    except HHError as exc:  # a tool crashed on this mutant: counted apart, the battery goes on
        row.update({"verdict": "infrastructure", "message": str(exc).splitlines()[0]})
    return row


def _self_and_seeds(yaml_path: Path, work: Path, timeout_s: float) -> list[dict]:
    design = _formal_design(yaml_path, timeout_s)
    rows = []
    for rtl in [yaml_path.parent / "reference.v", *sorted((yaml_path.parent / "seeds").glob("ok_*.v"))]:
        cand = Candidate.from_paths([rtl], top=design.top)
        t0 = time.monotonic()
        v = _verdict(cand, design, work / yaml_path.parent.name / rtl.stem)
        rows.append({"design": rtl.stem, **v, "total_s": round(time.monotonic() - t0, 2)})
    return rows


def _table(rows: dict[str, list[dict]]) -> list[str]:
    head = ["benchmark", "mutants", "invalid", "refuted", "proven", "bounded", "inconclusive", "infrastructure",
            "sim differs", "escapes"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    total = {h: 0 for h in head[1:]}
    for name, rs in rows.items():
        c = {"mutants": len(rs), **{k: sum(r["verdict"] == k for r in rs) for k in head[2:8]},
             "sim differs": sum(r.get("simulation", "no difference") != "no difference" for r in rs),
             "escapes": sum(bool(r.get("escape")) for r in rs)}
        for k, v in c.items():
            total[k] += v
        lines.append("| " + " | ".join([name, *(str(c[h]) for h in head[1:])]) + " |")
    lines.append("| **total** | " + " | ".join(str(total[h]) for h in head[1:]) + " |")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-op", type=int, default=4, help="sampled sites per mutation kind (stuck-at: every bit)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cycles", type=int, default=1000, help="differential simulation cycles per seed")
    ap.add_argument("--timeout", type=float, default=60, help="CPU-time budget of one formal check (s)")
    ap.add_argument("--benchmarks", default="")
    ap.add_argument("--work", type=Path, default=REPO / "runs" / "formal-battery", help="mutant folders (kept)")
    ap.add_argument("--out", type=Path, default=None, help="write formal.md and formal.json here")
    args = ap.parse_args()
    wanted = {b for b in args.benchmarks.split(",") if b}
    benches = [p.parent for p in sorted(REPO.glob("benchmarks/*/reference.v"))
               if (p.parent / "design.yaml").is_file() and (not wanted or p.parent.name in wanted)]
    if not benches:
        print("no benchmarks/*/reference.v found", file=sys.stderr)
        return 2
    args.work = args.work.resolve()  # the gates need absolute work folders
    shutil.rmtree(args.work, ignore_errors=True)
    t0 = time.monotonic()
    rows: dict[str, list[dict]] = {}
    seeds: dict[str, list[dict]] = {}
    with ProcessPoolExecutor(args.jobs) as pool:
        for b in benches:
            design = load_design(b / "design.yaml")
            text = (b / "reference.v").read_text(encoding="utf-8")
            jobs = [(str(b / "design.yaml"), label, t, str(args.work / b.name), args.cycles, args.timeout)
                    for label, t in mutants(text, design, args.per_op, args.seed)]
            rows[b.name] = list(pool.map(_evaluate, jobs))
            print(f"{b.name}: {len(jobs)} mutants, {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
        for b in benches:
            seeds[b.name] = _self_and_seeds(b / "design.yaml", args.work / "seeds", args.timeout)
    lines = ["# Equivalence mutation battery (`make formal`)", "",
             (f"{sum(map(len, rows.values()))} mutants in {time.monotonic() - t0:.0f} s (jobs {args.jobs}, "
              f"formal CPU budget {args.timeout:g} s); "
              f"simulation: differential bench, {args.cycles} cycles x 2 seeds. An escape is a mutant the formal "
              "check calls equivalent (proven or bounded) that simulation shows different."), "", *_table(rows), ""]
    for name, rs in rows.items():
        for r in rs:
            if r.get("escape") or r["verdict"] in ("infrastructure", "inconclusive"):
                lines.append(f"- {name}: {r['label']}: {r['verdict']}: {r.get('message', '')[:200]}")
    lines += ["", "## Reference against itself and against each valid seed", "",
              "| benchmark | design | verdict | engine | gate s |", "|---|---|---|---|---|"]
    for name, rs in seeds.items():
        lines += [f"| {name} | {r['design']} | {r['verdict']} | {r['engine']} | {r['wall_s']} |" for r in rs]
    print("\n".join(lines))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "formal.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (args.out / "formal.json").write_text(json.dumps({"mutants": rows, "seeds": seeds}, indent=1) + "\n",
                                             encoding="utf-8")
    return 1 if any(r.get("escape") for rs in rows.values() for r in rs) else 0


if __name__ == "__main__":
    sys.exit(main())
