"""PPA with the real tools: synthesis, STA, vectorless power, cache, cost, CLI."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import Weights, load_design
from hyperheurist.errors import ConfigError, ToolError
from hyperheurist.estimate import estimate, ppa_context
from hyperheurist.ppa import PPACache, PPAMetrics, cost, ppa_report_text
from hyperheurist.ppa.cost import INFEASIBLE
from hyperheurist.ppa.liberty import read_liberty
from hyperheurist.ppa.netlist import flatten, histogram, parse_netlist
from hyperheurist.ppa.sta import StaStage
from hyperheurist.ppa.synth import Synthesized, build_script
from hyperheurist.recipe import ABC_SCRIPTS, Recipe
from hyperheurist.stages.model import StageId, StageResult
from hyperheurist.stages.runner import StageRunner

DATA = Path(__file__).parent / "data" / "ppa"
OSU018 = Path("/usr/share/qflow/tech/osu018/osu018_stdcells.lib")
OSU035 = Path("/usr/share/qflow/tech/osu035/osu035_stdcells.lib")


def _cand(design: str, file: str, **params: str) -> Candidate:
    d = load_design(DATA / design / "design.yaml")
    c = Candidate.from_paths([DATA / design / file], d.top)
    return c.with_params(params, move="test") if params else c


def _design(name: str, **overrides):
    return load_design(DATA / name / "design.yaml", overrides or None)


def _numbers(m: PPAMetrics) -> dict:
    d = m.to_dict()
    d.pop("timings")
    return d


def test_every_recipe_knob_changes_the_script() -> None:
    base = Recipe()
    script = build_script(["a.v"], "top", base, OSU018, {})
    variants = [base.with_(abc_script=s) for s in ABC_SCRIPTS if s != base.abc_script]
    variants += [base.with_(abc_delay_target_ps=700), base.with_(fsm=False), base.with_(fsm_encoding="one-hot"),
                 base.with_(fsm_encoding="binary"), base.with_(share=False), base.with_(opt_full=True),
                 base.with_(flatten=False)]
    scripts = [build_script(["a.v"], "top", r, OSU018, {}) for r in variants]
    assert all(s != script for s in scripts)
    assert len(set(scripts)) == len(scripts)
    assert "abc -liberty" in script and "dfflibmap -liberty" in script
    assert "-D 700" in build_script(["a.v"], "top", base.with_(abc_delay_target_ps=700), OSU018, {})


@pytest.mark.tools
def test_bad_parameter_value_is_a_config_error(tmp_path: Path) -> None:
    cand = _cand("acc", "acc.v", WIDTH="8; shell")
    with pytest.raises(ConfigError):
        estimate(cand, _design("acc"), Recipe(), tmp_path)


@pytest.mark.tools
def test_area_grows_with_width_and_params_are_applied(tmp_path: Path) -> None:
    d = _design("acc")
    m8 = estimate(_cand("acc", "acc.v", WIDTH="8"), d, Recipe(), tmp_path / "w8")
    m16 = estimate(_cand("acc", "acc.v", WIDTH="16"), d, Recipe(), tmp_path / "w16")
    assert m16.area_um2 > 1.6 * m8.area_um2
    assert m16.cells > m8.cells
    assert sum(m8.cell_histogram.values()) == m8.cells
    assert m8.power_fidelity == "vectorless" and m8.power_mw > 0 and m8.leakage_mw > 0
    for stage in ("01-safety", "02-synthesis", "03-netlist_sim", "04-sta", "05-power"):
        assert (tmp_path / "w8" / stage / "result.json").is_file()


@pytest.mark.tools
def test_pipelining_shortens_the_critical_path(tmp_path: Path) -> None:
    d = _design("chain")
    flat = estimate(_cand("chain", "flat.v"), d, Recipe(), tmp_path / "flat")
    piped = estimate(_cand("chain", "piped.v"), d, Recipe(), tmp_path / "piped")
    assert piped.delay_ns < 0.8 * flat.delay_ns
    assert piped.fmax_mhz > flat.fmax_mhz
    assert flat.slack_ns == pytest.approx(d.ppa.clock_period_ns - flat.delay_ns, abs=1e-4)
    assert flat.critical_path["start"] and flat.critical_path["end"]
    text = ppa_report_text(flat)
    assert flat.critical_path["start"] in text and "DFFPOSX1" in text and "internal" in text


@pytest.mark.tools
def test_tight_clock_violates_and_costs_a_penalty(tmp_path: Path) -> None:
    d = _design("chain", **{"ppa.clock_period_ns": 1.0})
    m = estimate(_cand("chain", "flat.v"), d, Recipe(), tmp_path)
    assert not m.met_timing and m.slack_ns < 0
    w = Weights()
    assert cost(m, m, w, 1.0, 2.0, "weighted") == pytest.approx(1.0 + 2.0 * (m.delay_ns - 1.0) / 1.0)
    assert cost(m, m, w, 100.0, 2.0, "weighted") == pytest.approx(1.0)
    # the default objective: a design that misses the clock ranks above every one that meets it
    assert cost(m, m, w, 1.0, 2.0) == pytest.approx(1.0 + INFEASIBLE + 2.0 * -m.slack_ns / 1.0)


@pytest.mark.tools
def test_two_runs_identical_and_cache_hit(tmp_path: Path) -> None:
    d = _design("chain")
    cand = _cand("chain", "flat.v")
    r = Recipe(abc_script="delay", abc_delay_target_ps=1500)
    a = estimate(cand, d, r, tmp_path / "a")
    b = estimate(cand, d, r, tmp_path / "b")
    assert _numbers(a) == _numbers(b)
    cache = PPACache(tmp_path / "cache")
    first = estimate(cand, d, r, tmp_path / "c", cache=cache)
    assert not first.cached
    hit = estimate(cand, d, r, tmp_path / "d", cache=cache)
    assert hit.cached and _numbers(hit) == _numbers(first)
    assert not (tmp_path / "d").exists()  # answered from the cache: no stage ran, no folder was made
    assert not (tmp_path / "d").exists()
    other = estimate(cand, d, r.with_(abc_script="area"), tmp_path / "e", cache=cache)
    assert not other.cached
    assert PPAMetrics.from_dict(json.loads(json.dumps(hit.to_dict()))) == hit


@pytest.mark.tools
def test_custom_liberty_is_honoured(tmp_path: Path) -> None:
    cand = _cand("acc", "acc.v")
    base = estimate(cand, _design("acc"), Recipe(), tmp_path / "018")
    m035 = estimate(cand, _design("acc", **{"ppa.liberty": "osu035"}), Recipe(), tmp_path / "035")
    assert m035.liberty == str(OSU035) and m035.area_um2 > 2 * base.area_um2
    # a copy of osu018 with every cell area doubled: area must double exactly
    text = OSU018.read_text()
    import re

    doubled = re.sub(r"area : ([0-9.]+);", lambda m: f"area : {2 * float(m.group(1))};", text)
    lib = tmp_path / "osu018_x2.lib"
    lib.write_text(doubled)
    m2 = estimate(cand, _design("acc", **{"ppa.liberty": str(lib)}), Recipe(), tmp_path / "x2")
    assert m2.liberty == str(lib)
    assert m2.area_um2 == pytest.approx(2 * base.area_um2)
    assert read_liberty(OSU035).voltage == pytest.approx(3.3)


@pytest.mark.tools
def test_unreadable_liberty_is_a_one_line_tool_error(tmp_path: Path) -> None:
    lib = tmp_path / "broken.lib"
    lib.write_text(OSU018.read_text()[:5000])
    with pytest.raises(ToolError) as exc:
        estimate(_cand("acc", "acc.v"), _design("acc", **{"ppa.liberty": str(lib)}), Recipe(), tmp_path / "w")
    msg = str(exc.value)
    assert "\n" not in msg and "broken.lib" in msg and "truncated" in msg


@pytest.mark.tools
def test_netlist_rejected_by_opensta_is_a_tool_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.v"
    bad.write_text("module acc(clk, s);\n input clk;\n output s;\n NOSUCHCELL u0 (.A(clk), .Y(s));\n"
                   "endmodule garbage (\n")
    ctx = ppa_context(_cand("acc", "acc.v"), _design("acc"), Recipe(), "vectorless")
    netlist = Synthesized("bad.v", "", {}, {}, {}, 0)  # as if the synthesis stage had made it
    ctx.results[StageId.SYNTHESIS] = StageResult(StageId.SYNTHESIS, True, "", value=netlist)
    with pytest.raises(ToolError) as exc:
        StageRunner(tmp_path, ctx).run([StaStage()])
    line = str(exc.value).splitlines()[0]
    assert "OpenSTA rejected" in line and ("syntax error" in line or "not found" in line)


@pytest.mark.tools
def test_yosys_error_is_a_tool_error(tmp_path: Path) -> None:
    cand = _cand("acc", "acc.v", NOPE="3")
    with pytest.raises(ToolError) as exc:
        estimate(cand, _design("acc"), Recipe(), tmp_path)
    assert "NOPE" in str(exc.value).splitlines()[0]


@pytest.mark.tools
def test_cli_json(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "hyperheurist", "ppa", str(DATA / "acc" / "design.yaml"),
                          str(DATA / "acc" / "acc.v"), "--json", "--recipe", "abc_script=area",
                          "--cache-dir", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    for key in ("area_um2", "cells", "delay_ns", "slack_ns", "fmax_mhz", "power_mw", "power_fidelity", "liberty"):
        assert key in data
    assert data["recipe"]["abc_script"] == "area"
    bad = subprocess.run([sys.executable, "-m", "hyperheurist", "ppa", str(DATA / "acc" / "design.yaml"),
                          str(DATA / "acc" / "acc.v"), "--recipe", "abc_script=nope"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "abc_script" in bad.stderr


@pytest.mark.tools
def test_gated_activity_draws_less_activity_power(tmp_path: Path) -> None:
    d = _design("gated")
    gated = estimate(_cand("gated", "gated.v"), d, Recipe(), tmp_path / "g", power="activity")
    ungated = estimate(_cand("gated", "ungated.v"), d, Recipe(), tmp_path / "u", power="activity")
    assert gated.power_fidelity == ungated.power_fidelity == "activity"
    assert gated.area_um2 > ungated.area_um2, "the enable muxes cost area..."
    assert gated.dynamic_mw < 0.8 * ungated.dynamic_mw, "...but a quiet multiplier saves switching energy"
    for m in (gated, ungated):
        det = m.details["power"]
        assert det["nets_seen"] >= det["nets_in_netlist"] - 2, "VCD names must map onto the netlist's nets"
        assert det["toggles"] > 0 and m.power_split["switching_mw"] > 0 and m.power_split["internal_mw"] > 0
        assert m.leakage_mw > 0 and not (tmp_path / "g" / "05-power" / "activity.vcd").exists()
    again = estimate(_cand("gated", "gated.v"), d, Recipe(), tmp_path / "g2", power="activity")
    assert again.power_mw == gated.power_mw, "activity power is deterministic (seeded stimulus)"


@pytest.mark.tools
def test_activity_power_needs_cell_models(tmp_path: Path) -> None:
    lib = tmp_path / "copy.lib"  # a liberty without a Verilog model file beside it
    lib.write_text(OSU018.read_text())
    with pytest.raises(ConfigError, match="Verilog models"):
        estimate(_cand("acc", "acc.v"), _design("acc", **{"ppa.liberty": str(lib)}), Recipe(), tmp_path / "w",
                 power="activity")


def test_vcd_toggle_counting(tmp_path: Path) -> None:
    from hyperheurist.ppa.vcd import count_toggles

    vcd = tmp_path / "t.vcd"
    vcd.write_text("$timescale 1ps $end\n$scope module tb $end\n$scope module dut $end\n"
                   "$var wire 1 ! clk $end\n$var wire 4 \" q [3:0] $end\n$var wire 1 # \\n[2] $end\n"
                   "$scope module u0 $end\n$var wire 1 $ Y $end\n$upscope $end\n$upscope $end\n$upscope $end\n"
                   "$enddefinitions $end\n#0\n$dumpvars\n0!\nbx \"\n0#\n0$\n$end\n"
                   "#5\n1!\nb1010 \"\n1#\n1$\n#10\n0!\nb11 \"\nx#\n#15\n1!\n0#\n")
    t = count_toggles(vcd.read_text(), "tb.dut", skip={"u0"})
    assert t.counts["clk"] == [2, 1]
    assert t.counts["q[3]"] == [0, 1] and t.counts["q[1]"] == [0, 0] and t.counts["q[0]"] == [1, 0]
    assert t.counts["n[2]"] == [1, 0], "transitions through X do not count"
    assert "u0.Y" not in t.counts and t.end_time == 15


HIER = """module sub #(parameter INV = 0) (input clk, input a, input b, output y, output z);
  reg q;
  always @(posedge clk) q <= a ^ b;
  assign y = INV ? ~q : q;
  assign z = a & b;
endmodule
module htop (input clk, input a, input b, input c, output y0, output y1, output k, output w);
  wire m, n;
  sub #(.INV(0)) u0 (.clk(clk), .a(a), .b(b), .y(m), .z());
  sub #(.INV(1)) u1 (.clk(clk), .a(m), .b(c), .y(y1), .z(n));
  sub #(.INV(0)) u2 (.clk(clk), .a(m), .b(m), .y(), .z(w));
  assign y0 = m;
  assign k = n | c;
endmodule
"""


@pytest.mark.tools
def test_json_netlist_keeps_the_hierarchy_and_the_verilog_names(tmp_path: Path) -> None:
    (tmp_path / "h.v").write_text(HIER)
    (tmp_path / "synth.ys").write_text(build_script(["h.v"], "htop", Recipe().with_(flatten=False), OSU018, {}))
    done = subprocess.run(["yosys", "-q", "-s", "synth.ys"], cwd=tmp_path, capture_output=True, text=True,
                          env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert done.returncode == 0, done.stderr
    modules = parse_netlist((tmp_path / "netlist.json").read_text())
    hist = histogram(modules, "htop")
    assert any(m.startswith("$paramod") for m in modules) and "DFFPOSX1" in hist
    flat = flatten(modules, "htop")
    assert Counter(cell for _, cell, _ in flat.instances) == hist  # every leaf once, hierarchy expanded
    assert {path.split(".")[0] for path, _, _ in flat.instances} >= {"u0", "u1", "u2"}
    a = flat.aliases
    assert a["u0.y"] == a["u1.a"] == a["u2.a"] == a["u2.b"] == flat.top_ports["y0"][1]  # nets cross the hierarchy
    assert a["u1.y"] == flat.top_ports["y1"][1] and a["u2.z"] == flat.top_ports["w"][1]
    assert a["u0.y"] != a["u1.y"] and flat.top_ports["k"][0] == "output"
    # the names the gate-level simulation dumps: Yosys' private names renamed as write_verilog does
    verilog = (tmp_path / "netlist.v").read_text()
    top_text = verilog[verilog.index("module htop"):]
    top_leaves = [path for path, _, _ in flat.instances if "." not in path]
    assert top_leaves and all(re.search(rf"\s{re.escape(p)} \(", top_text) for p in top_leaves)
    wires = set(re.findall(r"^\s*wire (\S+);", verilog, re.M))
    assert "_0_" in wires  # a private name in a submodule
    seen = {name.split(".", 1)[-1] for name in a}
    assert wires <= seen and set(re.findall(r"^\s*wire (\S+);", top_text, re.M)) <= set(a)


def test_a_file_that_is_not_a_json_netlist_is_a_one_line_tool_error() -> None:
    for text in ("module m; endmodule\n", '{"modules": {"m": {"cells": {"c": {"type": "X"}}}}}', '{"modules": {}}'):
        with pytest.raises(ToolError) as exc:
            parse_netlist(text, where="w/netlist.json")
        assert str(exc.value).startswith("w/netlist.json: ") and "\n" not in str(exc.value)


@pytest.mark.tools
def test_activity_power_of_a_netlist_with_split_ports_equals_the_flat_one(tmp_path: Path) -> None:
    # flatten off keeps the hierarchy and splits the ports per bit (\a[0]); one module: the same cells
    d, cand = _design("gated"), _cand("gated", "gated.v")
    flat = estimate(cand, d, Recipe(), tmp_path / "f", power="activity")
    kept = estimate(cand, d, Recipe().with_(flatten=False), tmp_path / "k", power="activity")
    assert "\\a[0]" in next((tmp_path / "k").glob("*-synthesis/netlist.v")).read_text()
    assert kept.cell_histogram == flat.cell_histogram and kept.power_fidelity == "activity"
    assert kept.power_mw == flat.power_mw > 0


@pytest.mark.tools
def test_json_netlist_numbers_bits_as_declared(tmp_path: Path) -> None:
    (tmp_path / "o.v").write_text("module o(input clk, input [11:4] a, input [0:3] b, output reg [11:4] y,\n"
                                  "         output [0:3] z);\n  always @(posedge clk) y <= a + 1;\n"
                                  "  assign z = b ^ a[7:4];\nendmodule\n")
    (tmp_path / "synth.ys").write_text(build_script(["o.v"], "o", Recipe(), OSU018, {}))
    done = subprocess.run(["yosys", "-q", "-s", "synth.ys"], cwd=tmp_path, capture_output=True, text=True,
                          env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert done.returncode == 0, done.stderr
    flat = flatten(parse_netlist((tmp_path / "netlist.json").read_text()), "o")
    want = {"clk"} | {f"{p}[{i}]" for p in "ay" for i in range(4, 12)} | {f"{p}[{i}]" for p in "bz" for i in range(4)}
    assert set(flat.top_ports) == want
    assert {d for b, (d, _) in flat.top_ports.items() if b[0] in "yz"} == {"output"}
