"""verification.initial: `initial` blocks rejected by default; as power-on values (constants only) they are
simulated and proven from on both sides, and anything else in them is still rejected with file:line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.gating import run_gates

pytestmark = pytest.mark.tools

REF = """module pwr (input clk, input en, output reg [7:0] count, output wire top);
  initial count = 8'd5;
  always @(posedge clk) if (en) count <= count + 8'd1;
  assign top = &count;
endmodule
"""
GOOD = """module pwr (input clk, input en, output reg [7:0] count, output wire top);
  initial begin
    count = 8'h05;
  end
  wire [7:0] next = count + 1'b1;
  always @(posedge clk) count <= en ? next : count;
  assign top = count == 8'hff;
endmodule
"""
WRONG_START = GOOD.replace("8'h05", "8'h04")
NOT_CONSTANT = GOOD.replace("count = 8'h05;", "count = 8'h05;\n    $display(\"hello\");")


def _design(tmp_path: Path, policy: str | None) -> Path:
    d = tmp_path / "pwr"
    d.mkdir()
    (d / "spec.md").write_text("An 8-bit counter that powers up at 5 and counts while en is high.\n")
    (d / "ref.v").write_text(REF)
    for name, text in (("good.v", GOOD), ("wrong_start.v", WRONG_START), ("not_constant.v", NOT_CONSTANT)):
        (d / name).write_text(text)
    verification: dict[str, object] = {"reference": "ref.v", "timeout_s": 20,
                                       "differential": {"cycles": 50, "seed": 2}, "equivalence": {"enabled": True}}
    if policy:
        verification["initial"] = policy
    data = {"name": "pwr", "top": "pwr", "spec": "spec.md",
            "interface": {"clock": "clk", "ports": [{"name": "en", "dir": "input", "width": 1},
                                                    {"name": "count", "dir": "output", "width": 8},
                                                    {"name": "top", "dir": "output", "width": 1}]},
            "verification": verification}
    (d / "design.yaml").write_text(yaml.safe_dump(data))
    return d / "design.yaml"


def _gate(tmp_path: Path, design_yaml: Path, rtl: str, overrides: dict[str, object] | None = None):
    d = load_design(design_yaml, overrides)
    cand = Candidate.from_paths([design_yaml.parent / rtl], top=d.top)
    return run_gates(cand, d, tmp_path / rtl.removesuffix(".v"))


def test_default_policy_rejects_initial_and_names_the_policy(tmp_path: Path) -> None:
    rep = _gate(tmp_path, _design(tmp_path, None), "good.v")
    f = rep.failed
    assert f is not None and f.gate == "structure", rep.to_dict()
    assert "good.v:2: initial block is not allowed" in f.message and "power_on_values" in f.message


def test_power_on_values_pass_every_gate_and_are_proven_from(tmp_path: Path) -> None:
    rep = _gate(tmp_path, _design(tmp_path, "power_on_values"), "good.v")
    assert rep.passed, rep.to_dict()
    structure = next(r for r in rep.results if r.gate == "structure")
    assert "power-on values" in structure.message and "PPA ignores them" in structure.message
    assert structure.details["power_on"] == ["good.v:2: initial block"]
    eq = next(r for r in rep.results if r.gate == "equivalence")
    assert eq.details["verdict"] == "proven", eq.message


def test_a_different_power_on_value_fails_simulation(tmp_path: Path) -> None:
    rep = _gate(tmp_path, _design(tmp_path, "power_on_values"), "wrong_start.v")
    f = rep.failed
    assert f is not None and f.gate == "simulation" and "cycle 0" in f.message, rep.to_dict()


def test_a_different_power_on_value_fails_the_proof(tmp_path: Path) -> None:
    """The miter starts each side from its own power-on values: not free, not zero."""
    rep = _gate(tmp_path, _design(tmp_path, "power_on_values"), "wrong_start.v",
                {"verification.differential.enabled": False})
    f = rep.failed
    assert f is not None and f.gate == "equivalence", rep.to_dict()
    assert f.details["verdict"] == "refuted" and "reference 8'h05, candidate 8'h04" in f.message, f.message


def test_power_on_policy_still_rejects_anything_but_constants(tmp_path: Path) -> None:
    rep = _gate(tmp_path, _design(tmp_path, "power_on_values"), "not_constant.v")
    f = rep.failed
    assert f is not None and f.gate == "structure", rep.to_dict()
    assert f.message.startswith("not_constant.v:2: initial block holds a system task or function call"), f.message


def test_hh_ppa_warns_that_power_on_values_are_ignored(tmp_path: Path) -> None:
    """hh ppa runs no structure stage to say it: the warning comes from the command itself."""
    def ppa(design_yaml: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "hyperheurist", "ppa", str(design_yaml),
                               str(design_yaml.parent / "good.v"), "--no-cache"],
                              capture_output=True, text=True, timeout=300)

    res = ppa(_design(tmp_path, "power_on_values"))
    assert res.returncode == 0, res.stderr
    assert "verification.initial: power_on_values: PPA ignores power-on values" in res.stderr
    (tmp_path / "b").mkdir()
    plain = ppa(_design(tmp_path / "b", None))
    assert "power_on_values" not in plain.stderr
