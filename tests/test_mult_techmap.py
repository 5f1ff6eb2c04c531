"""The recipe's ``multiplier`` knob: our own $mul techmaps (ppa/techmap: radix-4 Booth and plain AND partial
products, carry-save reduction, one final add) are exact, proven by ABC (BDDs, then ``&cec``) against Yosys' own
``a * b`` for both signednesses and width shapes up to 7 bits (and Booth at 8x8 signed), and simulated (Icarus, fixed
seed) as mapped OSU018 netlists at 24x17 for every cell the recipe offers; constant and narrow operands stay
Yosys'; the knob reaches the script and the PPA cache key while every existing recipe keeps its script and
digest. Real Yosys, yosys-abc and Icarus."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from hyperheurist.config import BUNDLED_LIBERTIES
from hyperheurist.ppa import techmap
from hyperheurist.ppa.cache import MODEL_VERSION, cache_key
from hyperheurist.ppa.synth import NETLIST, build_script, synth_facts
from hyperheurist.recipe import LATER_KNOBS, KnobValue, Recipe, load_flow
from hyperheurist.runner import run_tool

pytestmark = pytest.mark.tools

MAPS = ("booth", "wallace")
LIBERTY = Path(BUNDLED_LIBERTIES["osu018"])
CELLS = LIBERTY.with_suffix(".v")  # the library's Verilog cell models
# (A_WIDTH, B_WIDTH, Y_WIDTH): equal and unequal operands (either one the wider), Y narrower and wider than A+B,
# the multiplier (the narrower operand) odd and even, 2 bits the narrowest the maps take. (5, 3, 8) is gone: it took
# every generate branch of (3, 6, 9) in both maps (odd 3-bit multiplier, Y = A+B, the same digit/row counts and
# carry-save tree) but the operand swap, and every other shape takes the unswapped branch.
SHAPES = [(4, 4, 8), (3, 6, 9), (6, 6, 5), (6, 5, 14), (2, 2, 4), (7, 4, 3)]


def _mul_module(name: str, aw: int, bw: int, yw: int, signed: bool, expr: str = "a * b") -> str:
    s = "signed " if signed else ""
    return (f"module {name}(input {s}[{aw - 1}:0] a, input {s}[{bw - 1}:0] b, output [{yw - 1}:0] y);\n"
            f"  assign y = {expr};\nendmodule\n")


def _maps(folder: Path, value: str, texts: dict[str, str] | None = None) -> str:
    """The techmap files of ``value`` written into ``folder`` (``texts`` replaces some), as -map options."""
    names = techmap.TECHMAPS["multiplier"][value].files
    for n in names:
        (folder / n).write_text((texts or {}).get(n, techmap.text(n)))
    return " ".join(f"-map {n}" for n in names)


def _yosys(folder: Path, script: str) -> str:
    (folder / "run.ys").write_text(script)
    res = run_tool(["yosys", "-q", "-l", "yosys.log", "-s", "run.ys"], name="yosys", log_dir=folder, cwd=folder,
                   timeout_s=240)
    log = (folder / "yosys.log").read_text() if (folder / "yosys.log").exists() else ""
    assert res.ok, res.tail(20) + log[-2000:]
    return log


def equivalent(folder: Path, value: str, aw: int, bw: int, yw: int, signed: bool,
               texts: dict[str, str] | None = None) -> bool:
    """Is ``value``'s map file, offered ``a * b`` whatever its widths and signedness (the recipe offers fewer
    cells), equivalent to Yosys' own mapping? ABC ``collapse`` first: the miter's global BDD over its at most 16
    inputs, an exact rewrite (a constant 0 when the products agree; BDDs over ABC's limit stop the script, no verdict),
    then ``&cec -m`` decides on what it left. A multiplier is SAT sweeping's worst case: ``&cec -m`` alone spent
    11-20 s (ABC's own count) on Booth 8x8, collapse and all 0.3 s."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mul.v").write_text(_mul_module("gold", aw, bw, yw, signed) + _mul_module("gate", aw, bw, yw, signed))
    maps = _maps(folder, value, texts)
    # the select asserts our map took the $mul (else this would compare Yosys with itself)
    _yosys(folder, "read_verilog -sv mul.v\nproc\nopt_clean\n"
                   f"techmap {maps} gate\n"
                   "select -assert-none gate/t:$mul\ntechmap\nopt\nmiter -equiv -flatten gold gate miter\n"
                   "hierarchy -top miter\nflatten\ntechmap\nopt\naigmap\nwrite_aiger -zinit miter.aig\n")
    res = run_tool(["yosys-abc", "-c", "read_aiger miter.aig; strash; collapse; strash; &get; &cec -m"], name="abc",
                   log_dir=folder, cwd=folder, timeout_s=240)
    out = (folder / "abc.stdout").read_text()
    assert res.ok, res.tail(20)
    if "Networks are equivalent" in out:
        return True
    assert "NOT EQUIVALENT" in out, out[-2000:]
    return False


@pytest.mark.parametrize("value", MAPS)
@pytest.mark.parametrize("signed", [False, True])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_proven_exact(tmp_path: Path, value: str, signed: bool, shape: tuple[int, int, int]) -> None:
    assert equivalent(tmp_path, value, *shape, signed)


@pytest.mark.slow
def test_booth_proven_exact_8x8(tmp_path: Path) -> None:
    """The widest proof: four Booth digits, the recipe's signed cells. (Wallace's 8x8 unsigned proof is gone: its
    rows are one generate loop that SHAPES reaches at every branch, and 24x17 simulates it wide.)"""
    assert equivalent(tmp_path, "booth", 8, 8, 16, True)


def test_checker_rejects_a_dropped_partial_product(tmp_path: Path) -> None:
    """The proof can fail: Booth with its second digit's row left out, Wallace with bit 1's row left out."""
    booth, wallace = techmap.text("mul_booth.v"), techmap.text("mul_wallace.v")
    cut_booth = booth.replace("assign rows[i*P +: P] = row[P+1:2] | carry_in[P+1:2];",
                              "assign rows[i*P +: P] = i == 1 ? carry_in[P+1:2] : row[P+1:2] | carry_in[P+1:2];")
    cut_wallace = wallace.replace("assign rows[i*P +: P] = row[P-1:0];",
                                  "assign rows[i*P +: P] = i == 1 ? {P{1'b0}} : row[P-1:0];")
    assert cut_booth != booth and cut_wallace != wallace
    assert not equivalent(tmp_path / "b", "booth", 6, 6, 12, True, {"mul_booth.v": cut_booth})
    assert not equivalent(tmp_path / "w", "wallace", 6, 6, 12, False, {"mul_wallace.v": cut_wallace})


def _synthesize(folder: Path, rtl: str, top: str, recipe: Recipe) -> str:
    """The synthesis stage's own script for ``recipe`` run on ``rtl``, with its techmap files beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "rtl.v").write_text(rtl)
    for name, text in techmap.files(recipe.to_dict()).items():
        (folder / name).parent.mkdir(exist_ok=True)
        (folder / name).write_text(text)
    return _yosys(folder, build_script(["rtl.v"], top, recipe, LIBERTY, {}))


@pytest.mark.slow
@pytest.mark.parametrize(("value", "signed"), [("booth", True), ("wallace", False), ("wallace", True)])
def test_mapped_netlist_simulates_exact(tmp_path: Path, value: str, signed: bool) -> None:
    """1000 random vectors (fixed seed, plus the extremes) through the OSU018 netlist against ``a * b``, for
    every cell the recipe offers a map: wide, unequal and odd (17 bits: Booth's extended digit). Equal even
    operands are SHAPES' and the 8x8 proof's; unsigned Booth (never offered) is SHAPES' proofs'."""
    aw, bw = 24, 17
    yw = aw + bw
    log = _synthesize(tmp_path, _mul_module("dut", aw, bw, yw, signed), "dut", Recipe().with_(multiplier=value))
    assert "_hh_mul_" in log  # our map was used, not Yosys' (the log names the techmap module)
    s = "signed " if signed else ""
    tb = f"""`timescale 1ns/1ps
module tb;
  reg {s}[{aw - 1}:0] a; reg {s}[{bw - 1}:0] b; wire [{yw - 1}:0] y; reg [{yw - 1}:0] want;
  integer i, bad, seed;
  dut d(.a(a), .b(b), .y(y));
  initial begin
    bad = 0; seed = 19;
    for (i = 0; i < 1004; i = i + 1) begin
      a = $random(seed); b = $random(seed);
      if (i >= 1000) begin a = i[0] ? -1 : 1 << {aw - 1}; b = i[1] ? -1 : 1 << {bw - 1}; end  // the extremes
      #1 want = a * b;
      if (y !== want) begin bad = bad + 1; if (bad < 5) $display("MISMATCH %h * %h = %h, not %h", a, b, want, y); end
    end
    $display("checked %0d bad %0d", i, bad);
  end
endmodule
"""
    (tmp_path / "tb.v").write_text(tb)
    comp = run_tool(["iverilog", "-g2005", "-o", "sim.vvp", "tb.v", NETLIST, str(CELLS)], name="iverilog",
                    log_dir=tmp_path, cwd=tmp_path, timeout_s=240, readable=(CELLS.parent,))
    assert comp.ok, comp.tail(20)
    res = run_tool(["vvp", "-n", "sim.vvp"], name="vvp", log_dir=tmp_path, cwd=tmp_path, timeout_s=240)
    out = (tmp_path / "vvp.stdout").read_text()
    assert res.ok and "checked 1004 bad 0" in out, out[-2000:]


@pytest.mark.parametrize("value", MAPS)
def test_map_files_refuse_a_constant_operand(tmp_path: Path, value: str) -> None:
    """Offered everything, the files still leave a constant operand (fir4's coefficients: shift-add is better)."""
    (tmp_path / "m.v").write_text(_mul_module("constant", 16, 16, 32, True, "a * 16'sd12345")
                                  + _mul_module("constant_a", 16, 16, 32, False, "16'd999 * b")
                                  + _mul_module("wide", 16, 16, 32, True))
    _yosys(tmp_path, f"read_verilog -sv m.v\nproc\nopt\nwreduce\ntechmap {_maps(tmp_path, value)}\nopt\n"
                     "select -assert-count 1 constant/t:$mul\nselect -assert-count 1 constant_a/t:$mul\n"
                     "select -assert-none wide/t:$mul\n")


@pytest.mark.parametrize("value", MAPS)
def test_recipe_offers_only_cells_that_pay(tmp_path: Path, value: str) -> None:
    """The recipe's pass leaves a 3-bit operand, a constant one and (Booth) unsigned 16x16 to Yosys; takes
    16x16 signed, and unsigned under Wallace."""
    (tmp_path / "m.v").write_text(_mul_module("narrow", 16, 3, 19, True) + _mul_module("wide", 16, 16, 32, True)
                                  + _mul_module("unsigned_wide", 16, 16, 32, False)
                                  + _mul_module("constant", 16, 16, 32, True, "a * 16'sd12345"))
    line = next(ln for ln in build_script([], "m", Recipe().with_(multiplier=value), LIBERTY, {}).splitlines()
                if ln.startswith("techmap -map"))
    (tmp_path / techmap.FOLDER).mkdir()
    for n in techmap.TECHMAPS["multiplier"][value].files:
        (tmp_path / techmap.FOLDER / n).write_text(techmap.text(n))
    _yosys(tmp_path, f"read_verilog -sv m.v\nproc\nopt\nwreduce\n{line}\nopt\n"
                     "select -assert-count 1 narrow/t:$mul\nselect -assert-count 1 constant/t:$mul\n"
                     f"select -assert-count {int(value == 'booth')} unsigned_wide/t:$mul\n"
                     "select -assert-none wide/t:$mul\n")


def test_offered_cells_are_a_synthesis_fact(tmp_path: Path) -> None:
    """The log tells the search how many cells the knob's pass was offered: 0 for Booth on unsigned and
    constant products (its netlist then differs from the default's by Yosys' names only), 1 on a signed one."""
    head = "module top(input [7:0] a, b, input signed [7:0] c, d, output [15:0] y, k, output signed [15:0] s);\n"
    plain = head + "  assign y = a * b;\n  assign k = a * 8'd93;\n  assign s = c + d;\nendmodule\n"
    signed = plain.replace("c + d", "c * d")
    for value, rtl, offered in (("yosys", signed, None), ("booth", plain, 0), ("booth", signed, 1),
                                ("wallace", signed, 2)):
        recipe = Recipe().with_(multiplier=value)
        log = _synthesize(tmp_path / f"{value}{offered}", rtl, "top", recipe)
        assert synth_facts(log, recipe).techmap_cells == offered, value


DEFAULT_SCRIPT = (
    'read_verilog -defer -sv "canonical.v"\nhierarchy -check -top top\nproc\nflatten\nopt_expr\nopt_clean\nfsm\n'
    "opt\nwreduce\npeepopt\nopt_clean\nshare\nalumacc\nopt\nmemory -nomap\nopt_clean\nmemory_map\nopt\ntechmap\n"
    'opt\ndfflibmap -liberty "/lib/x.lib"\nopt\nabc -liberty "/lib/x.lib"\nopt_clean -purge\nsetundef -zero\n'
    "splitnets\nopt_clean -purge\nhierarchy -top top\ncheck\n"
    "write_verilog -noattr -noexpr -nohex -nodec -simple-lhs netlist.v\nwrite_json netlist.json\n")


def test_knob_reaches_the_script_and_default_is_unchanged() -> None:
    lib = Path("/lib/x.lib")
    assert build_script(["canonical.v"], "top", Recipe(), lib, {}) == DEFAULT_SCRIPT  # the script of before
    assert build_script(["canonical.v"], "top", Recipe(multiplier="yosys"), lib, {}) == DEFAULT_SCRIPT
    for value in MAPS:
        recipe = Recipe().with_(multiplier=value)
        lines = build_script(["canonical.v"], "top", recipe, lib, {}).splitlines()
        tm = techmap.TECHMAPS["multiplier"][value]
        names = tm.files
        want = "techmap " + " ".join(f'-map "{techmap.FOLDER}/{n}"' for n in names) + f" {tm.cells}"
        assert lines[lines.index("alumacc") - 3: lines.index("alumacc")] == [f"select -count {tm.cells}", want, "opt"]
        assert sorted(techmap.files(recipe.to_dict())) == sorted(f"{techmap.FOLDER}/{n}" for n in names)
    assert techmap.files(Recipe().to_dict()) == {}


def test_existing_digests_unchanged_and_old_data_loads() -> None:
    """Digests name PPA folders, cache entries and journal records: those of recipes without the knob stay."""
    old = {"flatten": True, "fsm": True, "fsm_encoding": "auto", "share": True, "opt_full": False,
           "abc_script": "default", "abc_delay_target_ps": None}
    old_digest = hashlib.sha256(json.dumps(old, sort_keys=True).encode()).hexdigest()[:12]
    assert Recipe().digest == old_digest == "e7953ef14dca"  # as in runs made before the knob
    assert Recipe.from_dict(old) == Recipe() and Recipe.from_dict({**old, "multiplier": "yosys"}).digest == old_digest
    assert "multiplier" not in Recipe().to_dict() and "adder" not in Recipe().to_dict()
    assert Recipe.from_dict({**old, "multiplier": "yosys", "adder": "yosys"}).digest == old_digest
    for flow in ("default", "area", "timing"):  # the digest as computed before the knobs existed
        before = json.dumps(load_flow(flow).recipe.model_dump(exclude=set(LATER_KNOBS)), sort_keys=True)
        assert load_flow(flow).recipe.digest == hashlib.sha256(before.encode()).hexdigest()[:12]
    booth = Recipe().with_(multiplier="booth")
    assert booth.to_dict()["multiplier"] == "booth" and booth.digest != old_digest
    assert Recipe.from_dict(booth.to_dict()) == booth
    for flow in ("default", "area", "timing"):
        assert load_flow(flow).space["multiplier"] == ["yosys", "booth", "wallace"]


def test_cache_key_follows_the_techmap_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """Editing a techmap file changes the key of recipes that use it; a recipe without one keeps its old key."""
    def key(recipe: dict[str, KnobValue]) -> str:
        return cache_key(candidate="c", recipe=recipe, liberty_digest="l", tools="t", power="vectorless",
                         clock_period_ns=4.0, activity=0.1)

    plain = Recipe().to_dict()
    blob = json.dumps({"v": MODEL_VERSION, "candidate": "c", "recipe": plain, "liberty": "l", "tools": "t",
                       "power": "vectorless", "period": repr(4.0), "activity": repr(0.1), "extra": {}}, sort_keys=True)
    assert key(plain) == hashlib.sha256(blob.encode()).hexdigest()
    booth, wallace = Recipe(multiplier="booth").to_dict(), Recipe(multiplier="wallace").to_dict()
    assert key(booth) != key(wallace) != key(plain)
    before = {r["multiplier"]: key(r) for r in (booth, wallace)}
    real = techmap.text
    monkeypatch.setattr(techmap, "text", lambda n: real(n) + ("// edited\n" if n == "mul_booth.v" else ""))
    assert key(booth) != before["booth"]
    assert key(wallace) == before["wallace"]
    assert re.fullmatch(r"[0-9a-f]{64}", before["booth"])


@pytest.mark.tools
def test_the_adder_knob_joins_yosys_techmap(tmp_path: Path) -> None:
    """``adder``'s $lcu maps exist only once Yosys' own techmap maps $alu: they go with it, counted first."""
    recipe = Recipe().with_(adder="ripple")
    lines = build_script([], "top", recipe, LIBERTY, {}).splitlines()
    at = lines.index(f'techmap -map +/techmap.v -map "{techmap.FOLDER}/lcu_ripple.v"')
    assert "techmap" not in lines and lines[at - 1] == "select -count t:$alu t:$macc"
    assert lines.index("alumacc") < at
    log = _synthesize(tmp_path, "module top(input [7:0] a, b, output [8:0] y);\n  assign y = a + b;\nendmodule\n",
                      "top", recipe)
    used = set(re.findall(r"Using template \S*\\(_\d\d_\w+)\\WIDTH=\S+ for cells of type \$lcu\.", log))
    assert used == {"_80_lcu_ripple"}, used
