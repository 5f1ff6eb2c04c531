"""Elaborate from the top (issue 32): the gates read only the modules the top instantiates, and `initial`
blocks are judged as elaborated (a branch dead at the parameters vanishes; a constant-bound loop of
constants is a set of power-on values)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_inproc import hh_in_process
from projectlib import make_project

from hyperheurist.hdl.canonical import origin_locator
from hyperheurist.hdl.reach import reach_from_top

pytestmark = pytest.mark.tools
# `hh init` and `hh gate` are cli.main in this process: the design.yaml written and the JSON verdict are what is tested


def test_gate_on_a_submodule_ignores_the_wrapper_it_never_instantiates(tmp_path: Path) -> None:
    """`--top acc_stage` on a filelist that also holds the wrapper, whose `initial` block the default policy
    refuses: the wrapper is dropped from the canonical design (and named), every gate passes."""
    make_project(tmp_path)
    top = tmp_path / "rtl" / "acc_top.sv"
    top.write_text(top.read_text().replace("  assign parity", '  initial $display("acc_top up");\n  assign parity'))
    res = hh_in_process("init", "--top", "acc_stage", "-f", "rtl.f", "-o", "design.yaml", "--golden", "golden",
                        cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    res = hh_in_process("gate", "design.yaml", "--json", cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    safety = json.loads(res.stdout)["results"][0]
    assert safety["gate"] == "safety" and safety["details"]["dropped_modules"] == ["acc_top"]
    assert "does not instantiate dropped: acc_top" in safety["message"]


def test_instances_in_any_generate_branch_are_kept_and_line_mapping_survives() -> None:
    text = ('`line 1 "a.v" 0\nmodule top;\n  if (0) begin : g\n    rare u();\n  end\nendmodule\n'
            '`line 1 "b.v" 0\nmodule unused;\n`line 1 "h.vh" 1\n  reg r;\n`line 3 "b.v" 2\n'
            '  initial r = 0;\nendmodule\nmodule rare; endmodule\nmodule after; wire w; endmodule\n')
    got = reach_from_top(text, "top")
    assert got.dropped == ("unused", "after")
    assert "module rare;" in got.text and "initial" not in got.text
    assert got.text.count("\n") == text.count("\n")
    n = text.splitlines().index("module rare; endmodule") + 1
    assert origin_locator(got.text)(n) == origin_locator(text)(n) == "b.v:5"
    assert reach_from_top(text, "missing").text == text


RAM = """module ram #(parameter SIM_TRACE = "NONE", parameter DEPTH = 8) (
  input clk, input we, input [2:0] wa, input [2:0] ra, input [3:0] d, output [3:0] q);
  reg [3:0] mem [0:DEPTH-1];
  integer i;
  initial if (SIM_TRACE != "NONE") $display("ram: trace %s", SIM_TRACE);
  initial for (i = 0; i < DEPTH; i = i + 1) mem[i] = 4'd5;
  always @(posedge clk) if (we) mem[wa] <= d;
  assign q = mem[ra];
endmodule
"""
VARIANTS = {"good.v": RAM, "wrong.v": RAM.replace("mem[i] = 4'd5", "mem[i] = 4'd6"),
            "not_constant.v": RAM.replace("mem[i] = 4'd5", "mem[i] = d"),
            "dead_only.v": RAM.replace("for (i = 0; i < DEPTH; i = i + 1) mem[i] = 4'd5;",
                                       "begin " + " ".join(f"mem[{i}] = 4'd5;" for i in range(8)) + " end")}
VARIANTS["live.v"] = VARIANTS["dead_only.v"].replace('SIM_TRACE = "NONE"', 'SIM_TRACE = "ON"')


def _gate(tmp_path: Path, rtl: str, overrides: dict[str, object] | None = None):  # type: ignore[no-untyped-def]
    import yaml

    from hyperheurist.candidate import Candidate
    from hyperheurist.config import load_design
    from hyperheurist.gating import run_gates

    d = tmp_path / "ram"
    if not d.exists():
        d.mkdir()
        (d / "spec.md").write_text("A 8x4 RAM that powers up holding 5 in every word.\n")
        for name, text in VARIANTS.items():
            (d / name).write_text(text)
        (d / "ref.v").write_text(RAM)
        ports = [{"name": "we", "dir": "input", "width": 1}, {"name": "wa", "dir": "input", "width": 3},
                 {"name": "ra", "dir": "input", "width": 3}, {"name": "d", "dir": "input", "width": 4},
                 {"name": "q", "dir": "output", "width": 4}]
        (d / "design.yaml").write_text(yaml.safe_dump({
            "name": "ram", "top": "ram", "spec": "spec.md", "interface": {"clock": "clk", "ports": ports},
            "verification": {"reference": "ref.v", "timeout_s": 20, "initial": "power_on_values",
                             "differential": {"cycles": 50, "seed": 3}, "equivalence": {"enabled": True}}}))
    design = load_design(d / "design.yaml", overrides)
    return run_gates(Candidate.from_paths([d / rtl], top=design.top), design, tmp_path / rtl.removesuffix(".v"))


def test_dead_parameter_branch_of_an_initial_block_vanishes(tmp_path: Path) -> None:
    """`initial if (SIM_TRACE != "NONE") $display(...)`: false at the default parameters, so nothing is there."""
    rep = _gate(tmp_path, "dead_only.v", {"verification.equivalence.enabled": False})
    assert rep.passed, rep.to_dict()
    structure = next(r for r in rep.results if r.gate == "structure")
    assert structure.details["power_on"] == ["dead_only.v:6: initial block"]  # line 5 is not there
    # live at another default: refused, naming the line and the reason
    rep = _gate(tmp_path, "live.v")
    f = rep.failed
    assert f is not None and f.gate == "structure", rep.to_dict()
    assert f.message.startswith("live.v:5: initial block holds a system task or function call"), f.message


def test_constant_bound_initial_loop_is_power_on_values_for_bench_and_proof(tmp_path: Path) -> None:
    rep = _gate(tmp_path, "good.v")
    assert rep.passed, rep.to_dict()
    structure = next(r for r in rep.results if r.gate == "structure")
    assert structure.details["power_on"] == ["good.v:6: initial block"]
    assert next(r for r in rep.results if r.gate == "equivalence").details["verdict"] == "proven"
    # the unrolled values reach the differential bench: another start value differs at cycle 0
    rep = _gate(tmp_path, "wrong.v", {"verification.equivalence.enabled": False})
    f = rep.failed
    assert f is not None and f.gate == "simulation" and "cycle 0" in f.message, rep.to_dict()
    rep = _gate(tmp_path, "wrong.v", {"verification.differential.enabled": False})
    f = rep.failed
    assert f is not None and f.gate == "equivalence" and f.details["verdict"] == "refuted", rep.to_dict()


def test_a_loop_assigning_a_signal_is_refused_with_file_line(tmp_path: Path) -> None:
    rep = _gate(tmp_path, "not_constant.v")
    f = rep.failed
    assert f is not None and f.gate == "structure", rep.to_dict()
    assert f.message.startswith("not_constant.v:6: initial block holds a value that is not a constant"), f.message
