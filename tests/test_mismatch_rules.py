"""The structure stage's simulation/synthesis mismatch rules (hdl.mismatch, verification.mismatch, docs/mismatch.md).

Every refused design here got through today's gates first: on 4f6b7c3 (before these rules), `hh gate` exited 0 with
every gate PASS for tests/data/mismatch/alu/{x_compare,casez_x,casex,isunknown,full_case,parallel_attr,blackbox}.v
(a benchmark-like combinational spec: differential against the reference, `equivalence.against: parent`; the `===`
design was even reported "proven equivalent to the reference"), and for adder8/sens.v (`always @(a)` adder) and
div8/sens_nba.v (a divider as `always @(A, B)` blocks passing values through `<=`) under the equivalence-only gate
("proven equivalent ... full proof"). delay.v was refused then too, with no way to accept it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.gating import run_gates
from hyperheurist.hdl.mismatch import findings, pragma_words
from hyperheurist.hdl.parse import elaborate, parse_files

DATA = Path(__file__).parent / "data" / "mismatch"


def structure(tmp_path: Path, design: str, rtl: str, **overrides: object):
    d = load_design(DATA / design / "design.yaml", overrides or None)
    rep = run_gates(Candidate.from_paths([DATA / design / rtl], top=d.top), d, tmp_path / rtl, only=["structure"])
    assert [r.gate for r in rep.results] == ["safety", "structure"], rep.to_dict()
    return rep.results[1]


@pytest.mark.tools
@pytest.mark.parametrize("rtl, words", [
    ("x_compare.v", ["x_compare.v:10", "`===`", "verification.mismatch.x_compare"]),  # the issue's nxt === 13'bx
    ("casez_x.v", ["casez_x.v:3", "casez item with x digits"]),
    ("casex.v", ["casex.v:3", "casex"]),
    ("isunknown.v", ["isunknown.v:3", "$isunknown"]),
])
def test_x_compare_refused(tmp_path: Path, rtl: str, words: list[str]) -> None:
    res = structure(tmp_path, "alu", rtl)
    assert not res.passed
    for w in words:
        assert w in res.message, res.message
    assert res.details["mismatch"][0]["rule"] == "x_compare"
    # casez with ? don't-cares on the item side (and a comment that only mentions full_case) is no mismatch
    ok = structure(tmp_path, "alu", "casez_ok.v")
    assert ok.passed and not ok.details["mismatch_warnings"], ok.message


@pytest.mark.tools
@pytest.mark.parametrize("design, rtl, words", [
    ("adder8", "sens.v", ["sens.v:2", "misses `b`"]),  # the minimal always @(a) adder
    ("div8", "sens_nba.v", ["sens_nba.v:7", "misses `q`, `r`"]),  # values passed through <= between blocks
])
def test_incomplete_sensitivity_refused(tmp_path: Path, design: str, rtl: str, words: list[str]) -> None:
    res = structure(tmp_path, design, rtl)
    assert not res.passed
    for w in words + ["sensitivity list", "verification.mismatch.sensitivity"]:
        assert w in res.message, res.message
    assert structure(tmp_path, "adder8", "sens_full.v").passed  # always @(a or b) names all it reads


@pytest.mark.tools
@pytest.mark.parametrize("rtl, words", [
    ("full_case.v", ["full_case.v:3", "pragma `full_case parallel_case`"]),
    ("parallel_attr.v", ["parallel_attr.v:3", "(* parallel_case *)"]),
    ("blackbox.v", ["blackbox.v:1", "(* blackbox *)"]),  # Yosys drops the body: passed every gate on 4f6b7c3
])
def test_synthesis_pragmas_refused(tmp_path: Path, rtl: str, words: list[str]) -> None:
    res = structure(tmp_path, "alu", rtl)
    assert not res.passed
    for w in words + ["verification.mismatch.synthesis_pragmas"]:
        assert w in res.message, res.message


@pytest.mark.tools
def test_policy_warn_accepts_and_names_allow_is_silent(tmp_path: Path) -> None:
    res = structure(tmp_path, "alu", "delay.v")
    assert not res.passed and "delay.v:2" in res.message and "mismatch.delays: warn" in res.message
    warned = structure(tmp_path, "alu", "delay.v", **{"verification.mismatch.delays": "warn"})
    assert warned.passed and "delay.v:2" in warned.details["mismatch_warnings"][0], warned.message
    assert "mismatch" in warned.message
    warned = structure(tmp_path, "alu", "x_compare.v", **{"verification.mismatch.x_compare": "warn"})
    assert warned.passed and "x_compare.v:10" in warned.message
    allowed = structure(tmp_path, "alu", "x_compare.v", **{"verification.mismatch.x_compare": "allow"})
    assert allowed.passed and not allowed.details["mismatch_warnings"]


def _rules(tmp_path: Path, body: str) -> list[tuple[str, str]]:
    f = tmp_path / "m.v"
    f.write_text("module m(input clk, input [3:0] a, b, input [1:0] s, output reg [3:0] y, output reg [3:0] z);\n"
                 "parameter P = 1;\nreg [3:0] t;\ninteger i;\n" + body + "\nendmodule\n")
    trees = parse_files([f])
    comp = elaborate(trees, "m")
    return [(x.rule, x.where) for x in findings(trees, comp)]


@pytest.mark.parametrize("body, expected", [
    ("always @* y = (a == 4'b1x00) ? b : a;", [("x_compare", "m.v:5")]),
    ("always @* y = (a != 'z) ? b : a;", [("x_compare", "m.v:5")]),
    ("always @* y = (a == b) ? b : a;", []),
    ("always @* y = $countbits(a, 'x);", [("x_compare", "m.v:5")]),
    ("always @* case (s) 2'b1?: y = a; default: y = b; endcase", [("x_compare", "m.v:5")]),
    ("always @* casez (s) 2'b1?: y = a; 2'b0z: y = b; endcase", []),
    ("always @* unique case (s) 2'd0: y = a; 2'd1: y = b; 2'd2: y = a; endcase", [("synthesis_pragmas", "m.v:5")]),
    ("always @* unique case (s) 2'd0: y = a; default: y = b; endcase", []),
    ("always @* priority casez (s) 2'b1?: y = a; default: y = b; endcase", []),
    ("always @(a) begin t = a + b; y = t; end", [("sensitivity", "m.v:5")]),
    ("always @(a or b) begin t = a + b; y = t + P; for (i = 0; i < 2; i = i + 1) y = y + i; end", []),
    ("always @(a, b) begin t <= a + b; y <= t; end", [("sensitivity", "m.v:5")]),
    ("always @(a or b or t) begin t <= a + b; y <= t; end", []),
    ("always @(posedge clk) y <= a + b;", []),
    ("always @(a) z = a;\nalways @(b) y[b[1:0]] = a[0];", [("sensitivity", "m.v:6")]),  # the index is read
    ("// we use no translate_off here, and no full_case either\nalways @* y = a;", []),
    ("// synopsys translate_off is not used here; no full_case either\nalways @* y = a;",
     [("synthesis_pragmas", "m.v:5")]),  # Yosys reads `synopsys ... full_case` anywhere in it
    ("/* synthesis full_case */\nalways @* y = a;", [("synthesis_pragmas", "m.v:5")]),
])
def test_rules_on_small_texts(tmp_path: Path, body: str, expected: list[tuple[str, str]]) -> None:
    assert _rules(tmp_path, body) == expected


@pytest.mark.parametrize("comment, words", [
    ("// synopsys full_case", ["full_case"]),
    ("//synthesis parallel_case full_case", ["full_case", "parallel_case"]),
    ("/* synopsys\n   parallel_case */", ["parallel_case"]),
    ("// note: full_case is not needed here", []),
    ("// this comment mentions translate_off", []),
    ("// synopsys translate_off", []),  # the safety stage's (translate_off hides code from synthesis)
])
def test_pragma_form(comment: str, words: list[str]) -> None:
    assert pragma_words(comment) == words
    hides = pragma_words(comment, ("translate_off",))
    assert hides == (["translate_off"] if comment == "// synopsys translate_off" else [])
