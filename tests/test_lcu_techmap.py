"""The adder-architecture techmaps (hyperheurist/ppa/techmap/lcu_*.v), proven with the real Yosys.

Each map is proven equal to Yosys' own ``$lcu`` mapping (``_90_lcu``, Brent-Kung) at WIDTHS (1..17, 31..33, 64;
its carry in free), and whole adders, subtractors, comparators and a multiply-add, run through synth.py's own
script up to the generic ``techmap`` with the map applied just before it, are proven equal to the same script
without it: each operator once, each map at least once (a map equal to ``_90_lcu`` as a cell is equal wherever
an ``$alu`` puts it; a design proof checks that the knob's map takes every ``$lcu`` of its operator).
Proofs are ``sat -prove-asserts -set-def-inputs -enable_undef`` on a ``miter -equiv`` (sound: see
/work/shared/notes/toolchain.md). Deliberately wrong variants of each map are refuted by the same checker
(at DESIGN_WIDTHS: any width but 1 shows them).
No ``$lcu`` cell exists before ``$alu`` is mapped, so a map is applied as ``techmap -map +/techmap.v -map F``:
its ``_80_`` module sorts before ``_90_lcu`` and techmap takes it first (each test checks the log says so).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from hyperheurist.ppa.synth import build_script
from hyperheurist.recipe import Recipe
from hyperheurist.runner import run_tool

TECHMAP = Path(__file__).resolve().parent.parent / "hyperheurist" / "ppa" / "techmap"
ARCHS = ("ripple", "kogge_stone", "sklansky", "han_carlson", "ladner_fischer")
# every level count of the five maps' loops (a level starts at 2^k + 1: 3, 5, 9, 17, 33) with both parities
# (the sparse trees' even-bit fix-up), and 64; 18..30 repeat 17's and 31's levels and took most of the time
WIDTHS = (*range(1, 18), 31, 32, 33, 64)
# 1, odd and even, a power of two, and 16 as the wide case (wider ones are the bare $lcu proof's;
# a 33-bit multiply-add took 7x the time of all of these)
DESIGN_WIDTHS = (1, 2, 3, 5, 8, 16)
_VERDICT = re.compile(r"SAT proof finished - (no model found: SUCCESS|model found: FAIL)!")
_TEMPLATE = re.compile(r"Using template \S*\\(_\d\d_\w+)\\WIDTH=\S+ for cells of type \$lcu\.")
# the prefix combine every map writes (the even-bit fix-up of the sparse trees and the ripple use it too)
COMBINE = "g[j] = g[j] | (p[j] & g[k]);"
CARRY_IN = "g[0] = g[0] | (p[0] & CI);"
GATE_MARK = "hh: the gate side"  # in a design proof's log: templates after it mapped the gate, before it the gold


@dataclass(frozen=True)
class Proof:
    verdicts: list[bool]  # one per miter, in script order: True = proven equal
    templates: set[str]  # the techmap modules that mapped an $lcu
    log: str


def map_text(arch: str) -> str:
    return (TECHMAP / f"lcu_{arch}.v").read_text(encoding="utf-8")


def prove(folder: Path, script: list[str], files: dict[str, str]) -> Proof:
    """Run one Yosys script in ``folder`` (the map and the designs written beside it) and read its verdicts."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "prove.ys").write_text("\n".join(script) + "\n", encoding="utf-8")
    res = run_tool(["yosys", "-q", "-l", "prove.log", "-s", "prove.ys"], name="yosys", log_dir=folder,
                   timeout_s=240, cwd=folder)
    log = (folder / "prove.log").read_text(encoding="utf-8") if (folder / "prove.log").exists() else ""
    assert res.ok, f"yosys failed: {res.describe()}\n{res.stderr[-2000:]}\n{log[-2000:]}"
    return Proof([m.group(1).startswith("no model") for m in _VERDICT.finditer(log)],
                 set(_TEMPLATE.findall(log)), log)


def sat(miter: str) -> str:
    return f"sat -prove-asserts -set-def-inputs -enable_undef {miter}"


def prove_lcu(folder: Path, techmap_text: str, widths: tuple[int, ...] = WIDTHS) -> Proof:
    """One bare ``$lcu`` per width, mapped by Yosys (gold) and by the map (gate), one miter per width."""
    src = "".join(f"module {side}_{w} (input [{w - 1}:0] p, g, input ci, output [{w - 1}:0] co);\n"
                  f"  \\$lcu #(.WIDTH({w})) u (.P(p), .G(g), .CI(ci), .CO(co));\nendmodule\n"
                  for w in widths for side in ("gold", "gate"))
    script = ["read_verilog -icells lcu_cells.v", "hierarchy", "techmap -map +/techmap.v -map lcu_map.v gate_*",
              "techmap gold_*", "opt -fast"]
    for w in widths:
        script += [f"miter -equiv -flatten -make_assert gold_{w} gate_{w} miter_{w}", sat(f"miter_{w}")]
    return prove(folder, script, {"lcu_cells.v": src, "lcu_map.v": techmap_text})


# designs with an $alu (or a $macc) at each of DESIGN_WIDTHS; `dut` instantiates them all (synth.py flattens)
OPS = {
    "add": ("[W:0]", "a + b"),
    "add_cin": ("[W:0]", "a + b + c[0]"),
    "sub": ("[W-1:0]", "a - b"),
    "lt_unsigned": ("", "a < b"),
    "lt_signed": ("", "$signed(a) < $signed(b)"),
    "ge_signed": ("", "$signed(a) >= $signed(b)"),
    "mul_add": ("[W:0]", "a * (b & 2'd3) + c"),
}


def design_text(op: str) -> str:
    width, expr = OPS[op]
    leaf = (f"module leaf #(parameter W = 1) (input [W-1:0] a, b, c, output {width} y);\n"
            f"  assign y = {expr};\nendmodule\n")
    body = []
    for w in DESIGN_WIDTHS:
        out = f"[{w}:0]" if width == "[W:0]" else f"[{w - 1}:0]" if width else ""
        body.append(f"  input [{w - 1}:0] a{w}, b{w}, c{w}; output {out} y{w};\n"
                    f"  leaf #(.W({w})) u{w} (.a(a{w}), .b(b{w}), .c(c{w}), .y(y{w}));\n")
    ports = ", ".join(f"a{w}, b{w}, c{w}, y{w}" for w in DESIGN_WIDTHS)
    return leaf + f"module dut ({ports});\n" + "".join(body) + "endmodule\n"


def synth_front(recipe: Recipe) -> list[str]:
    """synth.py's script for ``recipe`` up to the generic techmap and the opt after it (where the ``adder``
    knob joins its map to Yosys' own)."""
    lines = build_script(["design.v"], "dut", recipe, Path("unused.lib"), {}).splitlines()
    at = next(i for i, line in enumerate(lines) if line == "techmap" or line.startswith("techmap -map +/techmap.v"))
    assert lines[at - 1].startswith(("opt", "select -count")) and lines[at + 1].startswith("opt"), lines
    return lines[:at + 2]


def prove_design(folder: Path, op: str, arch: str, techmap_text: str) -> Proof:
    """The default recipe's synthesis against the ``adder: arch`` recipe's, its map file being ``techmap_text``."""
    gold = synth_front(Recipe())
    gate = synth_front(Recipe().with_(adder=arch))
    assert gate != gold and f'techmap/lcu_{arch}.v' in "\n".join(gate)  # the knob reaches the script
    script = [*gold, "rename dut gold", "design -stash gold", f"log {GATE_MARK}", *gate, "rename dut gate",
              "design -copy-from gold -as gold gold", "miter -equiv -flatten -make_assert gold gate miter",
              sat("miter")]
    return prove(folder, script, {"design.v": design_text(op), f"techmap/lcu_{arch}.v": techmap_text})


def test_every_map_file_is_tested() -> None:
    assert sorted(p.stem for p in TECHMAP.glob("lcu_*.v")) == sorted(f"lcu_{a}" for a in ARCHS)
    for arch in ARCHS:
        text = map_text(arch)
        assert '(* techmap_celltype = "$lcu" *)' in text and f"module _80_lcu_{arch} (P, G, CI, CO);" in text
        assert COMBINE in text and CARRY_IN in text  # the mutants below must really mutate each map


@pytest.mark.tools
@pytest.mark.parametrize("arch", ARCHS)
def test_map_equals_yosys_lcu_at_the_widths(arch: str, tmp_path: Path) -> None:
    proof = prove_lcu(tmp_path, map_text(arch))
    assert proof.templates == {f"_80_lcu_{arch}", "_90_lcu"}, proof.templates
    assert len(proof.verdicts) == len(WIDTHS), proof.log[-2000:]
    refuted = [w for w, ok in zip(WIDTHS, proof.verdicts, strict=True) if not ok]
    assert refuted == [], f"lcu_{arch}.v differs from Yosys' $lcu at WIDTH {refuted}"


@pytest.mark.tools
@pytest.mark.parametrize("arch", ARCHS)
def test_a_dropped_prefix_term_is_refuted(arch: str, tmp_path: Path) -> None:
    """The top bit's prefix terms dropped: wrong at every width but 1 (where the top bit is bit 0)."""
    wrong = map_text(arch).replace(COMBINE, "g[j] = g[j] | (p[j] & g[k] & (j != WIDTH - 1));")
    proof = prove_lcu(tmp_path, wrong, DESIGN_WIDTHS)
    assert f"_80_lcu_{arch}" in proof.templates
    assert proof.verdicts == [w == 1 for w in DESIGN_WIDTHS]


@pytest.mark.tools
@pytest.mark.parametrize("arch", ARCHS)
def test_a_dropped_carry_in_is_refuted_where_the_carry_in_is_used(arch: str, tmp_path: Path) -> None:
    """Without CI the bare $lcu differs at every width; an `a + b` (CI = 0) does not notice, `a - b` does."""
    wrong = map_text(arch).replace(CARRY_IN, "g[0] = g[0];")
    assert prove_lcu(tmp_path / "lcu", wrong, DESIGN_WIDTHS).verdicts == [False] * len(DESIGN_WIDTHS)
    assert prove_design(tmp_path / "add", "add", arch, wrong).verdicts == [True]
    assert prove_design(tmp_path / "sub", "sub", arch, wrong).verdicts == [False]


# every operator once, every map at least once; the multiply-add (the $macc) with a sparse tree (its even-bit fix-up)
DESIGN_CASES = [("ripple", "add"), ("kogge_stone", "add_cin"), ("sklansky", "sub"), ("han_carlson", "lt_unsigned"),
                ("ladner_fischer", "lt_signed"), ("kogge_stone", "ge_signed"), ("ladner_fischer", "mul_add")]


def test_every_operator_and_map_has_a_design_proof() -> None:
    assert {op for _, op in DESIGN_CASES} == set(OPS) and {arch for arch, _ in DESIGN_CASES} == set(ARCHS)


@pytest.mark.tools
@pytest.mark.parametrize(("arch", "op"), DESIGN_CASES)
def test_synthesised_design_equals_the_default(arch: str, op: str, tmp_path: Path) -> None:
    proof = prove_design(tmp_path, op, arch, map_text(arch))
    gold, gate = (set(_TEMPLATE.findall(part)) for part in proof.log.split(GATE_MARK))
    assert gold == {"_90_lcu"} and gate == {f"_80_lcu_{arch}"}, (gold, gate)
    assert proof.verdicts == [True], f"{op} mapped with lcu_{arch}.v differs from Yosys' default"
