#!/usr/bin/env python3
"""Mutation study of the gate chain: mutate every ``benchmarks/*/reference.v``, gate each mutant.

Mutation operators (applied one site at a time, on code only, never comments or strings):
operator swaps (+ -, & |, ^ |, == !=, < <=, > >=), constant changes (a number n -> n+1),
inverted conditions (``if (c)`` -> ``if (!(c))``), dropped assignments (one statement removed).
Sites are sampled with a fixed seed, at most ``--per-op`` per operator and benchmark.

Prints a table: mutants per benchmark, how many each gate rejected, how many survived every gate,
and how many survivors the formal check (Yosys SAT: full proof for combinational designs,
bounded from reset for sequential ones) proves equivalent to the reference. A non-equivalent
survivor is a gate-chain escape; the goal is zero.

Usage: .venv/bin/python tools/mutants.py [--per-op N] [--jobs J] [--benchmarks a,b] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hyperheurist.candidate import Candidate  # noqa: E402
from hyperheurist.config import load_design  # noqa: E402
from hyperheurist.gates import GATES, run_gates  # noqa: E402
from hyperheurist.errors import HHError  # noqa: E402
from hyperheurist.gates.lexer import lex  # noqa: E402

SWAPS = {"+": "-", "-": "+", "&": "|", "|": "&", "^": "|", "==": "!=", "!=": "==", "<": "<=", ">": ">="}
# a binary operator with operands around it (not <=/>= of assignments or comparisons, not && || << >>)
OPERATOR = re.compile(r"(?<=[\w\)\]\s])(==|!=|(?<![<>=!&|^~+\-])[+\-&|^](?![&|=+\-])|(?<![<>=])<(?![<=])|(?<![<>=-])>(?![>=]))(?=\s*[\w(~!{'])")
NUMBER = re.compile(r"(?<![\w$'.])(\d+)'([sS]?[dD])(\d+)|(?<![\w$'.])(\d+)(?![\w'.])")
IF = re.compile(r"\bif\s*\(")
ASSIGN = re.compile(r"^[ \t]*(?:assign\s+)?[A-Za-z_][\w\[\]:+\- ]*\s*(<=|=)[^=][^;]*;[ \t]*$", re.M)


def _close_paren(code: str, start: int) -> int:
    depth = 0
    for i in range(start, len(code)):
        if code[i] == "(":
            depth += 1
        elif code[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def mutants(text: str, per_op: int, seed: int) -> list[tuple[str, str]]:
    """(label, mutated text) pairs."""
    code = lex(text).code
    rng = random.Random(seed)
    sites: dict[str, list[tuple[str, str]]] = {"operator": [], "constant": [], "condition": [], "drop": []}
    for m in OPERATOR.finditer(code):
        op = m.group(1)
        if code[max(0, m.start() - 1)] in "[:" or op not in SWAPS:
            continue
        new = text[: m.start()] + SWAPS[op] + text[m.end():]
        sites["operator"].append((f"op {op}->{SWAPS[op]} @{code.count(chr(10), 0, m.start()) + 1}", new))
    for m in NUMBER.finditer(code):
        line = code.count("\n", 0, m.start()) + 1
        if m.group(3) is not None:
            width, base, val = m.group(1), m.group(2), int(m.group(3))
            new_val = (val + 1) % (1 << int(width)) if int(width) < 64 else val + 1
            rep = f"{width}'{base}{new_val}"
        else:
            rep = str(int(m.group(4)) + 1)
        sites["constant"].append((f"const {m.group(0)}->{rep} @{line}", text[: m.start()] + rep + text[m.end():]))
    for m in IF.finditer(code):
        open_at = m.end() - 1
        close = _close_paren(code, open_at)
        if close < 0:
            continue
        new = text[: open_at + 1] + "!(" + text[open_at + 1 : close] + ")" + text[close:]
        sites["condition"].append((f"invert if @{code.count(chr(10), 0, m.start()) + 1}", new))
    for m in ASSIGN.finditer(code):
        if re.match(r"\s*(wire|reg|localparam|parameter|input|output|integer)\b", m.group(0)):
            continue
        new = text[: m.start()] + text[m.end():]
        sites["drop"].append((f"drop @{code.count(chr(10), 0, m.start()) + 1}", new))
    out: list[tuple[str, str]] = []
    for kind, found in sites.items():
        rng.shuffle(found)
        out += [(f"{kind}: {label}", t) for label, t in found[:per_op]]
    return out


def _evaluate(job: tuple[str, str, str, str]) -> dict:
    yaml_path, label, text, workroot = job
    design = load_design(yaml_path)
    cand = Candidate.from_text(text, top=design.top, name="mutant.v")
    wd = Path(workroot) / cand.short
    t0 = time.monotonic()
    try:
        rep = run_gates(cand, design, wd)
    except HHError as exc:  # a tool crashed on this mutant: counted apart, the study goes on
        return {"label": label, "gate": "infrastructure", "message": str(exc).splitlines()[0], "equivalent": None,
                "wall_s": round(time.monotonic() - t0, 2)}
    row = {"label": label, "gate": rep.failed.gate if rep.failed else None,
           "message": rep.failed.message if rep.failed else "", "equivalent": None}
    if rep.passed:
        proof = run_gates(cand, design, wd / "proof", equivalence=True, only=["equivalence"])
        row["equivalent"] = proof.passed
        row["proof"] = proof.results[0].message if proof.results else ""
    row["wall_s"] = round(time.monotonic() - t0, 2)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-op", type=int, default=6)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--benchmarks", default="")
    ap.add_argument("--out", type=Path, default=None, help="write mutants.json here")
    args = ap.parse_args()
    wanted = {b for b in args.benchmarks.split(",") if b}
    benches = [p.parent for p in sorted(REPO.glob("benchmarks/*/reference.v"))
               if (p.parent / "design.yaml").is_file() and (not wanted or p.parent.name in wanted)]
    if not benches:
        print("no benchmarks/*/reference.v found", file=sys.stderr)
        return 2
    rows: dict[str, list[dict]] = {}
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="hh-mutants-") as tmp, ProcessPoolExecutor(args.jobs) as pool:
        for b in benches:
            text = (b / "reference.v").read_text(encoding="utf-8")
            jobs = [(str(b / "design.yaml"), label, t, tmp) for label, t in mutants(text, args.per_op, args.seed)]
            rows[b.name] = list(pool.map(_evaluate, jobs))
    header = ["benchmark", "mutants", *GATES, "infrastructure", "survived", "equivalent", "escapes"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    total = {h: 0 for h in header[1:]}
    for name, rs in rows.items():
        counts = {"mutants": len(rs), **{g: sum(r["gate"] == g for r in rs) for g in (*GATES, "infrastructure")}}
        counts["survived"] = sum(r["gate"] is None for r in rs)
        counts["equivalent"] = sum(r["equivalent"] is True for r in rs)
        counts["escapes"] = counts["survived"] - counts["equivalent"]
        for k, v in counts.items():
            total[k] += v
        print("| " + " | ".join([name, *(str(counts[h]) for h in header[1:])]) + " |")
    print("| **total** | " + " | ".join(str(total[h]) for h in header[1:]) + " |")
    print(f"\n{total['mutants']} mutants in {time.monotonic() - t0:.0f} s; escapes = survivors not proven equivalent")
    for name, rs in rows.items():
        for r in rs:
            if r["gate"] is None and not r["equivalent"]:
                print(f"  escape: {name}: {r['label']}: {r.get('proof', '')}")
            if r["gate"] == "infrastructure":
                print(f"  tool fault: {name}: {r['label']}: {r['message']}")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "mutants.json").write_text(json.dumps(rows, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
