"""The wide-operator fallback (``ppa/techmap/wide.py``): a ``$div``/``$mod`` at or above
``ppa.wide_operator_bits`` is mapped by our array divider, proven equal to Yosys' own map (SAT, both
signednesses, unequal widths, division by zero included); a ``$mul`` at or above ``ppa.wide_multiplier_bits``
has ABC run ``-fast``; the estimate records how many cells each took; a design without such cells runs
exactly the script it always did. The thresholds are lowered so 8-bit operators exercise the paths in
seconds (the 32- and 64-bit measurements are in docs/wide-operators.md). Real Yosys."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.estimate import estimate, key_for
from hyperheurist.ppa.cache import PPACache
from hyperheurist.ppa.synth import WIDE_MAP
from hyperheurist.ppa.techmap import text, wide
from hyperheurist.recipe import Recipe
from hyperheurist.runner import run_tool

pytestmark = pytest.mark.tools

DIV8 = """module div8(input [7:0] a, input [7:0] b, output [7:0] q, output [7:0] r);
  // a / b and a % b, 8 bits: "%d" in a comment or a string is no operator
  assign q = a / b;
  assign r = a % b;
endmodule
"""
DESIGN = """name: div8
top: div8
spec: spec.md
interface:
  ports:
    - {name: a, dir: input, width: 8}
    - {name: b, dir: input, width: 8}
    - {name: q, dir: output, width: 8}
    - {name: r, dir: output, width: 8}
verification:
  reference: div8.v
  differential: {cycles: 200, seed: 1}
ppa:
  clock_period_ns: 20.0
"""


def _design(tmp_path: Path, bits: int | None):
    (tmp_path / "design.yaml").write_text(DESIGN)
    (tmp_path / "spec.md").write_text("q = a / b, r = a % b\n")
    (tmp_path / "div8.v").write_text(DIV8)
    return load_design(tmp_path / "design.yaml", {"ppa.wide_operator_bits": bits, "ppa.wide_multiplier_bits": bits})


def _synth_script(work: Path) -> str:
    return next(work.rglob("synth.ys")).read_text()


def test_a_wide_divider_is_mapped_by_the_fallback_and_the_estimate_says_so(tmp_path: Path) -> None:
    design = _design(tmp_path, 6)
    cand = Candidate.from_paths([tmp_path / "div8.v"], design.top)
    m = estimate(cand, design, Recipe(), tmp_path / "wide")  # netlist_sim runs too: the netlist equals the RTL
    assert m.details["synth_facts"]["wide_operators"] == 2  # the $div and the $mod
    script = _synth_script(tmp_path / "wide")
    assert f"techmap -map \"{WIDE_MAP}\" {wide.selection(6)}" in script
    assert next((tmp_path / "wide").rglob("wide.ys")).is_file()  # the front-end count ran first
    # above the threshold nothing is mapped, and the script is the one without any fallback
    narrow = estimate(cand, _design(tmp_path, 9), Recipe(), tmp_path / "narrow")
    never = estimate(cand, _design(tmp_path, None), Recipe(), tmp_path / "never")
    assert all("wide_operators" not in m.details["synth_facts"] for m in (narrow, never))
    assert _synth_script(tmp_path / "narrow") == _synth_script(tmp_path / "never")
    assert WIDE_MAP not in _synth_script(tmp_path / "never")
    assert narrow.details["netlist_digest"] == never.details["netlist_digest"]
    assert not list((tmp_path / "never").rglob("wide.ys"))  # no count without a threshold
    # the cache tells the three apart: an estimate made with the fallback never answers one without it
    keys = {key_for(cand, _design(tmp_path, b), Recipe(), "vectorless") for b in (6, 9, None)}
    assert len(keys) == 3
    cache = PPACache(tmp_path / "cache")
    estimate(cand, _design(tmp_path, 6), Recipe(), tmp_path / "c1", cache=cache)
    again = estimate(cand, _design(tmp_path, 6), Recipe(), tmp_path / "c2", cache=cache)
    assert again.cached and again.details["synth_facts"]["wide_operators"] == 2


def test_only_rtl_with_a_division_or_product_operator_is_counted() -> None:
    assert wide.operators([DIV8]) == (True, False)
    assert wide.operators(["module m(input [3:0] a, output [3:0] y); assign y = a % 3; endmodule"]) == (True, False)
    assert wide.operators(['module m(input [3:0] a, output [3:0] y); // a / b * c\n'
                           '  /* a % b */ initial $display("%d / %d", a, a); (* keep *) wire w;\n'
                           '  always @* ; always @(*) ; assign y = a ** 2; endmodule']) == (False, False)
    for product in ("a * b", "(a) * (b)", "a*2"):
        assert wide.operators([f"module m(input [3:0] a, b, output [7:0] y); assign y = {product}; endmodule"]) \
            == (False, True)
    log = f"x\n{wide.FOUND}\n3 objects.\n2 objects.\n"
    assert wide.count(log) == 3 and wide.count("1 objects.\n") is None
    rest = wide.without_count(log)
    assert "3 objects." not in rest and "2 objects." in rest  # the other passes' counts are left to read


def _module(name: str, aw: int, bw: int, yw: int, signed: bool, op: str) -> str:
    s = "signed " if signed else ""
    return (f"module {name}(input {s}[{aw - 1}:0] a, input {s}[{bw - 1}:0] b, output {s}[{yw - 1}:0] y);\n"
            f"  assign y = a {op} b;\nendmodule\n")


# both signednesses, and the map's WIDTH taken from A, from B and from Y (signed 6/6/6 repeated 7/4/7's branches)
@pytest.mark.parametrize(("aw", "bw", "yw", "signed"),
                         [(6, 6, 6, False), (7, 4, 7, True), (4, 6, 5, False), (5, 5, 8, True)])
def test_the_array_divider_equals_yosys_own_map(tmp_path: Path, aw: int, bw: int, yw: int, signed: bool) -> None:
    """Both sides mapped to gates (so division by zero is what each map makes of it, not x), then a SAT
    proof over every input."""
    (tmp_path / "div_array.v").write_text(text(wide.FILE))
    mods = "".join(_module(f"{side}_{op}", aw, bw, yw, signed, sym) for side in ("gold", "gate")
                   for op, sym in (("div", "/"), ("mod", "%")))
    (tmp_path / "ops.v").write_text(mods)
    script = ["read_verilog -sv ops.v", "proc", "opt_clean"]
    for op in ("div", "mod"):
        script += [f"select -assert-count 1 gate_{op}/t:$div gate_{op}/t:$mod %u",
                   f"techmap -map div_array.v gate_{op}/t:$div gate_{op}/t:$mod %u"]
    script += ["techmap", "opt"]
    for op in ("div", "mod"):
        script += [f"miter -equiv -flatten -make_assert gold_{op} gate_{op} miter_{op}",
                   f"sat -verify -prove-asserts miter_{op}"]
    (tmp_path / "run.ys").write_text("\n".join(script) + "\n")
    res = run_tool(["yosys", "-q", "-l", "yosys.log", "-s", "run.ys"], name="yosys", log_dir=tmp_path, cwd=tmp_path,
                   timeout_s=240)
    log = (tmp_path / "yosys.log").read_text()
    assert res.ok, res.tail(20) + log[-2000:]
    assert log.count("SUCCESS!") == 2


MUL8 = """module div8(input [7:0] a, input [7:0] b, output [7:0] q, output [7:0] r);
  // the design's name and ports as DESIGN's: an 8x8 product in place of the division
  wire [15:0] p = a * b;
  assign q = p[15:8];
  assign r = p[7:0];
endmodule
"""


def test_a_wide_product_has_abc_run_fast_whatever_the_recipe(tmp_path: Path) -> None:
    design = _design(tmp_path, 6)
    (tmp_path / "mul8.v").write_text(MUL8)
    cand = Candidate.from_paths([tmp_path / "mul8.v"], design.top)
    area = Recipe().with_(abc_script="area")
    m = estimate(cand, design, area, tmp_path / "wide")
    assert m.details["synth_facts"]["wide_multipliers"] == 1 and "wide_operators" not in m.details["synth_facts"]
    abc = [ln for ln in _synth_script(tmp_path / "wide").splitlines() if ln.startswith("abc ")]
    assert len(abc) == 1 and " -fast" in abc[0] and "-script" not in abc[0]
    never = estimate(cand, _design(tmp_path, None), area, tmp_path / "never")
    assert "wide_multipliers" not in never.details["synth_facts"]
    assert "-script" in _synth_script(tmp_path / "never") and " -fast" not in _synth_script(tmp_path / "never")
    # a threshold other than the default keys its own estimate; the default keeps the key a product had
    assert key_for(cand, design, area, "vectorless") != key_for(cand, _design(tmp_path, None), area, "vectorless")
