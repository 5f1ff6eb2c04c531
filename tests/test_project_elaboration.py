"""Elaborate from the top (issue 32): the gates read only the modules the top instantiates, and `initial`
blocks are judged as elaborated (a branch dead at the parameters vanishes; a constant-bound loop of
constants is a set of power-on values)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from projectlib import make_project

from hyperheurist.hdl.canonical import origin_locator
from hyperheurist.hdl.reach import reach_from_top

HH = [sys.executable, "-m", "hyperheurist"]
pytestmark = pytest.mark.tools


def hh(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*HH, *args], cwd=cwd, capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL)


def test_gate_on_a_submodule_ignores_the_wrapper_it_never_instantiates(tmp_path: Path) -> None:
    """`--top acc_stage` on a filelist that also holds the wrapper, whose `initial` block the default policy
    refuses: the wrapper is dropped from the canonical design (and named), every gate passes."""
    make_project(tmp_path)
    top = tmp_path / "rtl" / "acc_top.sv"
    top.write_text(top.read_text().replace("  assign parity", '  initial $display("acc_top up");\n  assign parity'))
    res = hh("init", "--top", "acc_stage", "-f", "rtl.f", "-o", "design.yaml", "--golden", "golden", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    res = hh("gate", "design.yaml", "--json", cwd=tmp_path)
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
