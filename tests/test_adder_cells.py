"""The ``adder_cells`` knob: the library's full and half adder cells found by their Liberty functions, and
netlists made with them proven equal to their RTL with the real Yosys.

A netlist is proven with cell models written from the same Liberty functions (OSU018's Verilog models
use UDPs, which Yosys does not read), as a sum of minterms: the parser (``truth_table``) is checked on its
own first, so the models do not inherit a parser error unseen.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hyperheurist.config import load_design
from hyperheurist.ppa import adder_cells
from hyperheurist.ppa.cache import cache_key
from hyperheurist.ppa.liberty import Liberty, read_liberty
from hyperheurist.ppa.metrics import PPAMetrics
from hyperheurist.ppa.synth import ADDER_MAP, ADDERS_FOUND, SynthFacts, build_script, map_files, synth_facts
from hyperheurist.recipe import Recipe, load_flow
from hyperheurist.runner import run_tool
from hyperheurist.search.knowledge import cannot_act

ROOT = Path(__file__).resolve().parent.parent
ADDER32 = ROOT / "benchmarks" / "adder32"
OSU018 = Path(load_design(ADDER32 / "design.yaml").ppa.liberty_path or "")
_VERDICT = re.compile(r"SAT proof finished - (no model found: SUCCESS|model found: FAIL)!")
ABC = ("A", "B", "C")


# ---- the Liberty function reader ------------------------------------------------------------------
@pytest.mark.parametrize("function,table", [
    ("(A B)", 0b10001000), ("A&B", 0b10001000), ("A*B", 0b10001000), ("A+B", 0b11101110), ("A|B", 0b11101110),
    ("!A", 0b01010101), ("A'", 0b01010101), ("(A+B)'", 0b00010001), ("A^B", 0b01100110),
    ("A^B C", 0b01100000),  # XOR binds tighter than AND (OpenSTA's reading)
    ("A B+C", 0b11111000), ("!(A B)+C", 0b11110111), ("0", 0), ("1", 0xFF),
    ("(((A B)+(B C))+(C A))", 0b11101000), ("((A^B)^C)", 0b10010110),
])
def test_liberty_functions_read_as_truth_tables(function: str, table: int) -> None:
    assert adder_cells.truth_table(function, ABC) == table


@pytest.mark.parametrize("function", ["A+", "(A B", "D", "A $ B", ""])
def test_a_function_that_does_not_read_is_none(function: str) -> None:
    assert adder_cells.truth_table(function, ABC) is None


def test_osu018_has_fax1_and_hax1() -> None:
    found = adder_cells.find(read_liberty(OSU018))
    assert found is not None
    assert (found.full.name, found.full.carry, found.full.sum) == ("FAX1", "YC", "YS")
    assert found.half is not None and (found.half.name, found.half.carry, found.half.sum) == ("HAX1", "YC", "YS")


def _lib(tmp_path: Path, cells: str) -> Liberty:
    path = tmp_path / "mini.lib"
    path.write_text("library (mini) {\n" + cells + "}\n", encoding="utf-8")
    return read_liberty(path)


def _cell(name: str, ins: tuple[str, ...], outs: dict[str, str], area: float = 10) -> str:
    pins = "".join(f"  pin({p}) {{ direction : input; capacitance : 0.01; }}\n" for p in ins)
    pins += "".join(f'  pin({p}) {{ direction : output; function : "{f}"; }}\n' for p, f in outs.items())
    return f"cell ({name}) {{\n  area : {area};\n{pins}}}\n"


def test_only_true_adders_are_taken_and_the_smallest_wins(tmp_path: Path) -> None:
    inv = _cell("INV", ("A",), {"Y": "!A"})
    lib = _lib(tmp_path, inv + _cell("FAINV", ABC, {"CO": "!((A B)+(B C)+(A C))", "S": "A^B^C"})
               + _cell("XOR3", ABC, {"Y": "A^B^C", "Z": "A^B^C"}))
    assert adder_cells.find(lib) is None, "an inverted carry or two sums is no full adder"
    lib = _lib(tmp_path, inv + _cell("FA2", ("X", "Y", "Z"), {"S": "X^Y^Z", "CO": "X Y + Y Z + X Z"}, area=30)
               + _cell("FA1", ("P", "Q", "R"), {"CO": "P Q + Q R + P R", "S": "P^Q^R"}, area=20))
    found = adder_cells.find(lib)
    assert found is not None and found.full.name == "FA1" and found.half is None
    assert "_TECHMAP_FAIL_" in adder_cells.map_text(found), "without a half adder, a half adder stays Yosys'"


# ---- netlists proven against their RTL ------------------------------------------------------------
def cell_models(lib: Liberty, names: set[str]) -> str:
    """Verilog models of the combinational cells ``names`` as sums of minterms of their Liberty functions."""
    out = []
    for name in sorted(names):
        cell = lib.cells[name]
        ins = tuple(p.name for p in cell.inputs())
        body = []
        for o in cell.outputs():
            table = adder_cells.truth_table(o.function or "", ins)
            assert table is not None, f"{name}.{o.name}: {o.function}"
            terms = [" & ".join(p if i >> k & 1 else f"~{p}" for k, p in enumerate(ins))
                     for i in range(1 << len(ins)) if table >> i & 1]
            expr = " | ".join(f"({t})" for t in terms) or "1'b0"
            body.append(f"  assign {o.name} = {expr};")
        ports = ", ".join([*(f"input {p}" for p in ins), *(f"output {o.name}" for o in cell.outputs())])
        out.append(f"module {name} ({ports});\n" + "\n".join(body) + "\nendmodule\n")
    return "".join(out)


def synthesize(folder: Path, rtl: str, top: str, recipe: Recipe, map_text: str | None = None) -> tuple[str, str]:
    """``build_script``'s own script on ``rtl``; the netlist and the log. ``map_text``: another map file."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "rtl.v").write_text(rtl, encoding="utf-8")
    maps = map_files(recipe, read_liberty(OSU018))  # what the synthesis stage writes beside its script
    assert ADDER_MAP in maps
    if map_text is not None:
        maps[ADDER_MAP] = map_text
    (folder / "techmap").mkdir(exist_ok=True)
    for name, text in maps.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "synth.ys").write_text(build_script(["rtl.v"], top, recipe, OSU018, {}, adder_cells=True))
    res = run_tool(["yosys", "-q", "-l", "yosys.log", "-s", "synth.ys"], name="yosys", log_dir=folder,
                   timeout_s=240, cwd=folder)
    log = (folder / "yosys.log").read_text(encoding="utf-8")
    assert res.ok, log[-2000:]
    return (folder / "netlist.v").read_text(encoding="utf-8"), log


def prove(folder: Path, rtl: str, netlist: str, top: str) -> bool:
    """True when the netlist (with models of its cells) equals the RTL for every input (SAT, combinational)."""
    lib = read_liberty(OSU018)
    used = {c for c in lib.cells if re.search(rf"^\s*{c}\s", netlist, re.M)}
    (folder / "gold.v").write_text(rtl, encoding="utf-8")
    (folder / "gate.v").write_text(netlist.replace(f"module {top}(", "module hh_gate(")
                                   .replace(f"module {top} (", "module hh_gate ("), encoding="utf-8")
    (folder / "cells.v").write_text(cell_models(lib, used), encoding="utf-8")
    script = ["read_verilog -sv gold.v", "read_verilog gate.v cells.v", "hierarchy -check", "proc", "flatten",
              "opt_clean",
              f"miter -equiv -flatten -make_assert {top} hh_gate miter",
              "sat -prove-asserts -set-def-inputs -enable_undef miter"]
    (folder / "prove.ys").write_text("\n".join(script) + "\n", encoding="utf-8")
    res = run_tool(["yosys", "-q", "-l", "prove.log", "-s", "prove.ys"], name="yosys", log_dir=folder,
                   timeout_s=240, cwd=folder)
    log = (folder / "prove.log").read_text(encoding="utf-8") if (folder / "prove.log").exists() else ""
    assert res.ok or "FAIL" in log, log[-2000:]
    verdicts = [m.group(1).startswith("no model") for m in _VERDICT.finditer(log)]
    assert len(verdicts) == 1, log[-2000:]
    return verdicts[0]


RIPPLE = (ADDER32 / "seeds" / "ok_2_prefix.v").read_text(encoding="utf-8")
INCREMENT = """module inc9 (input [8:0] a, input c, output [9:0] y);
  assign y = a + c;  // a half adder per bit
endmodule
"""
# 4x4, the narrowest product the wallace knob takes: its proof against the RTL took 1.5 s where 6x6's under
# Yosys' own multiplier took 40 s (a SAT proof of two multiplier architectures grows steeply with width)
MUL4 = """module mul4 (input [3:0] a, b, input [7:0] k, output [8:0] y);
  assign y = a * b + k;
endmodule
"""


@pytest.mark.slow
@pytest.mark.tools
@pytest.mark.parametrize("name,rtl,top,recipe,cells", [
    ("ripple", RIPPLE, "adder32", Recipe(adder_cells=True), {"FAX1"}),
    ("increment", INCREMENT, "inc9", Recipe(adder_cells=True), {"HAX1"}),
    ("ripple_lcu", INCREMENT, "inc9", Recipe(adder_cells=True, adder="ripple"), {"HAX1"}),
    ("mul_add", MUL4, "mul4", Recipe(adder_cells=True, multiplier="wallace"), {"FAX1", "HAX1"}),
    ("mul_add_yosys", MUL4, "mul4", Recipe(adder_cells=True), {"FAX1"}),
])
def test_netlists_with_adder_cells_are_proven(tmp_path: Path, name: str, rtl: str, top: str, recipe: Recipe,
                                             cells: set[str]) -> None:
    netlist, log = synthesize(tmp_path, rtl, top, recipe)
    used = {c for c in ("FAX1", "HAX1") if re.search(rf"^\s*{c}\s", netlist, re.M)}
    assert cells <= used, f"{name}: the netlist uses {used}"
    facts = synth_facts(log, recipe)
    assert facts.adder_cells is not None and facts.adder_cells > 0
    assert prove(tmp_path, rtl, netlist, top), f"{name}: the netlist differs from its RTL"


@pytest.mark.tools
def test_a_wrong_map_is_refuted_by_the_same_proof(tmp_path: Path) -> None:
    found = adder_cells.find(read_liberty(OSU018))
    assert found is not None
    swapped = adder_cells.map_text(found).replace(".YC(X[i]), .YS(Y[i])", ".YC(Y[i]), .YS(X[i])")
    assert swapped != adder_cells.map_text(found)
    netlist, _ = synthesize(tmp_path, RIPPLE, "adder32", Recipe(adder_cells=True), swapped)
    assert not prove(tmp_path, RIPPLE, netlist, "adder32")


@pytest.mark.tools
def test_the_ripple_seed_maps_to_32_full_adders_only(tmp_path: Path) -> None:
    """The figure the README quotes: adder32's ripple chain is 32 FAX1 and nothing else (3840 um2, against
    5592 um2 of gates), through ``hh ppa`` itself (the stage, the sandbox, the facts, the metrics, the
    activity power of a gate-level simulation)."""
    res = subprocess.run([sys.executable, "-m", "hyperheurist", "ppa", str(ADDER32 / "design.yaml"),
                          str(ADDER32 / "seeds" / "ok_2_prefix.v"), "--recipe", "adder_cells=true", "--json",
                          "--set", "tunables=[]", "--cache-dir", str(tmp_path / "cache"), "--power", "activity"],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    m = json.loads(res.stdout)
    assert m["cell_histogram"] == {"FAX1": 32} and m["area_um2"] == 3840.0
    assert m["details"]["synth_facts"]["adder_cells"] >= 32 and m["delay_ns"] > 0
    # the gate-level simulation runs the cells' two outputs, and their internal power counts
    assert m["power_fidelity"] == "activity" and m["power_split"]["internal_mw"] > 0


def test_the_script_without_the_knob_is_unchanged() -> None:
    """The knob off, or a library without adder cells, adds no line: every old netlist stays what it was."""
    base = build_script(["rtl.v"], "t", Recipe(), OSU018, {})
    assert build_script(["rtl.v"], "t", Recipe(), OSU018, {}, adder_cells=True) == base
    assert build_script(["rtl.v"], "t", Recipe(adder_cells=True), OSU018, {}, adder_cells=False) == base
    assert "extract_fa" not in base and Recipe().digest == Recipe(adder_cells=False).digest
    assert Recipe(adder_cells=True).digest != Recipe().digest


def _metrics(facts: SynthFacts) -> PPAMetrics:
    return PPAMetrics(1.0, 1, {}, 1.0, 0.0, 1.0, True, {}, 1.0, 1.0, 0.0, "vectorless", "osu018", {},
                      details={"synth_facts": facts.to_dict()})


def test_facts_and_cannot_act() -> None:
    on = Recipe(adder_cells=True)
    log = f"3 objects.\n{ADDERS_FOUND}\n0 objects.\n"
    facts = synth_facts(log, Recipe(adder_cells=True, adder="ripple"))
    assert facts.adder_cells == 0 and facts.techmap_cells == 3, "the techmap count stops at the marker"
    assert synth_facts("no marker\n", on).adder_cells is None
    assert "adder_cells" not in synth_facts("", Recipe()).to_dict(), "old evaluations read as they did"
    none, some = _metrics(SynthFacts(0, (), 0, adder_cells=0)), _metrics(SynthFacts(0, (), 0, adder_cells=5))
    assert cannot_act(none, on, "adder_cells", False), "no adder found: off gives the same cells"
    assert not cannot_act(some, on, "adder_cells", False)
    assert not cannot_act(_metrics(SynthFacts(0, (), 0)), Recipe(), "adder_cells", True), "off: nothing known"


def test_every_flow_offers_the_knob() -> None:
    for flow in ("default", "area", "timing"):
        assert load_flow(flow).space["adder_cells"] == [False, True]


def test_the_cache_key_follows_the_adder_map_text() -> None:
    """The adder-cell map is made from the liberty: the PPA cache keys on its text like on our techmap files,
    and a recipe without the knob keeps the key it had before the knob existed."""
    lib = read_liberty(OSU018)

    def key(recipe: Recipe, maps: dict[str, str] | None) -> str:
        return cache_key(candidate="c", recipe=recipe.to_dict(), liberty_digest="l", tools="t", power="vectorless",
                         clock_period_ns=4.0, activity=0.1, maps=maps)

    on = Recipe(adder_cells=True)
    maps = map_files(on, lib)
    assert key(on, maps) != key(on, {**maps, ADDER_MAP: maps[ADDER_MAP] + "// edited\n"}) != key(on, {})
    for plain in (Recipe(), Recipe(adder="ripple")):
        assert key(plain, map_files(plain, lib)) == key(plain, None)
