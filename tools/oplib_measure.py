"""The operator library measured: each architecture of hyperheurist/search/moves/oparch.py against
Yosys's own mapping of the plain operator, synthesized and timed the way hh measures a design
(``hyperheurist.estimate``: the default flow recipe, OSU018, OpenSTA, vectorless power).

    python tools/oplib_measure.py [--widths 8,16,32] [--mul-widths 4,8,16] [--ops add,addc,...] [--json F]

Prints one markdown table (area, delay, power, and each relative to the plain operator).
``--designs``: instead, every option of the move on each benchmark reference (benchmarks/*, benchmarks/qor/*
slow.v) that has a site, measured with that design's own config, relative to the reference.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hyperheurist.candidate import Candidate
from hyperheurist.config import DesignConfig, load_design
from hyperheurist.estimate import estimate
from hyperheurist.jsonio import write_json
from hyperheurist.recipe import load_flow
from hyperheurist.search.moves.oparch import ALL_ARCHS
from hyperheurist.search.moves.operators import OperatorLibrary
from hyperheurist.search.moves.verilog import apply_edits, parse

PLAIN = {"add": "a + b", "sub": "a - b", "lt": "a < b", "mul": "a * b", "dec": "1 << s", "inc": "a + 1",
         "addc": "a + b + c"}


def shape(op: str, n: int) -> tuple[dict[str, int], int]:
    """Input widths and output width of operator ``op`` at size ``n`` (``dec``: n outputs, log2(n) select bits;
    ``inc``: an n-bit counter's next value)."""
    if op == "dec":
        return {"s": max(1, (n - 1).bit_length())}, n
    if op == "inc":
        return {"a": n}, n
    if op == "addc":
        return {"a": n, "b": n, "c": 1}, n + 1
    return {"a": n, "b": n}, {"add": n + 1, "sub": n, "lt": 1, "mul": 2 * n}[op]


def write_design(folder: Path, top: str, ins: dict[str, int], out: int, body: str) -> tuple[DesignConfig, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    ports = ", ".join(f"input [{w - 1}:0] {n}" for n, w in ins.items())
    (folder / "rtl.v").write_text(f"module {top}({ports}, output [{out - 1}:0] y);\n{body}")
    (folder / "spec.md").write_text(f"{top}: an operator\n")
    cfg = {"name": top, "top": top, "spec": "spec.md",
           "interface": {"ports": [*({"name": n, "dir": "input", "width": w} for n, w in ins.items()),
                                   {"name": "y", "dir": "output", "width": out}]},
           "verification": {"reference": "rtl.v"}, "ppa": {"clock_period_ns": 10.0}}
    (folder / "design.yaml").write_text(yaml.safe_dump(cfg))
    return load_design(folder / "design.yaml"), folder / "rtl.v"


def measure(design: DesignConfig, rtl: Path, work: Path) -> dict[str, float]:
    m = estimate(Candidate.from_paths([rtl], design.top), design, load_flow(design.ppa.flow).recipe, work)
    return {"area_um2": round(m.area_um2, 1), "delay_ns": round(m.delay_ns, 3), "power_mw": round(m.power_mw, 4)}


def variants(op: str, n: int) -> list[tuple[str, str]]:
    """(label, module body after the port list) for the plain operator and each architecture."""
    ins, out = shape(op, n)
    wa, wb = (*ins.values(), 0)[:2]
    out_list = [("yosys", f"  assign y = {PLAIN[op]};\nendmodule\n")]
    if op == "dec":
        bank = ", ".join(f"(s == {i})" for i in range(out - 1, -1, -1))
        out_list.append(("compare bank", f"  assign y = {{{bank}}};\nendmodule\n"))
    conn = {"dec": ".s(s)", "inc": ".a(a), .b(32'd1)", "addc": ".a(a), .b(b), .c(c)"}.get(op, ".a(a), .b(b)")
    if op == "inc":  # the move's form of ``a + 1``: an adder with a 32-bit constant operand
        wb = 32
    for arch in (a for a in ALL_ARCHS if a.op == ("add" if op == "inc" else op)):
        name = f"oplib_{arch.name}_{op}{n}"
        out_list.append((arch.name, f"  {name} u({conn}, .y(y));\nendmodule\n\n{arch.make(name, wa, wb, out)}"))
    return out_list


def in_designs(tmp: Path) -> list[dict[str, object]]:
    """Every option of the move on every benchmark reference with a site (one site changed at a time)."""
    rows: list[dict[str, object]] = []
    for y in sorted((REPO / "benchmarks").glob("**/design.yaml")):
        design = load_design(y)
        ref = design.verification.reference
        if ref is None or not Path(ref).is_file():
            continue
        text = Path(ref).read_text(encoding="utf-8")
        tree = parse(text)
        move = OperatorLibrary()
        options = move.options(text, tree) if move.accepts(text, tree) else []
        if not options:
            continue
        base: dict[str, float] | None = None
        for k, (label, edits) in enumerate([("reference", []), *options]):
            new = apply_edits(text, edits)
            folder = tmp / y.parent.name / str(k)
            folder.mkdir(parents=True)
            (folder / Path(ref).name).write_text(new or text, encoding="utf-8")
            m = measure(design, folder / Path(ref).name, folder / "work")
            base = base or m
            rel = {key: round(m[key] / base[key], 3) if base[key] else None for key in m}
            rows.append({"design": y.parent.name, "option": label, **m, "rel": rel})
            print(f"| {y.parent.name} | {label} | {m['area_um2']:.0f} | {m['delay_ns']:.2f} | {m['power_mw']:.3f} "
                  f"| {rel['area_um2']} | {rel['delay_ns']} | {rel['power_mw']} |", flush=True)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--widths", default="8,16,32")
    ap.add_argument("--mul-widths", default="4,8,16")
    ap.add_argument("--ops", default="add,addc,sub,lt,mul,dec,inc")
    ap.add_argument("--json", help="also write the rows as JSON to this file")
    ap.add_argument("--designs", action="store_true", help="the move's options on the benchmark references")
    args = ap.parse_args()
    if args.designs:
        print("| design | option | area um2 | delay ns | power mW | area/ref | delay/ref | power/ref |\n"
              "|---|---|---|---|---|---|---|---|")
        with tempfile.TemporaryDirectory(prefix="hh-oplib-") as tmp:
            found = in_designs(Path(tmp))
        if args.json:
            write_json(Path(args.json), {"rows": found})
        return 0
    rows = []
    print("| op | width | architecture | area um2 | delay ns | power mW | area/plain | delay/plain | power/plain |\n"
          "|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="hh-oplib-") as tmp:
        for op in args.ops.split(","):
            for n in map(int, (args.mul_widths if op == "mul" else args.widths).split(",")):
                ins, out = shape(op, n)
                base: dict[str, float] | None = None
                for label, body in variants(op, n):
                    folder = Path(tmp) / f"{op}{n}_{label.replace(' ', '_')}"
                    design, rtl = write_design(folder, f"{op}{n}", ins, out, body)
                    m = measure(design, rtl, folder / "work")
                    base = base or m
                    rel = {k: round(m[k] / base[k], 3) if base[k] else None for k in m}
                    rows.append({"op": op, "width": n, "arch": label, **m, "rel": rel})
                    print(f"| {op} | {n} | {label} | {m['area_um2']:.0f} | {m['delay_ns']:.2f} | {m['power_mw']:.3f} "
                          f"| {rel['area_um2']:.3f} | {rel['delay_ns']:.3f} | {rel['power_mw']:.3f} |", flush=True)
    if args.json:
        write_json(Path(args.json), {"rows": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
