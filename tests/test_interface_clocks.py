"""Several clocks and resets with their domains: a dual-clock synchronizer through the gates and PPA.

The differential bench drives every clock with its own period and every reset with its own schedule;
STA gets one create_clock per clock; the formal check refuses asynchronous domains (it steps one clock)
and proves designs whose clocks are declared synchronous. One-clock design.yaml files are unchanged."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.errors import ConfigError
from hyperheurist.gating import run_gates

REF = """module sync2 (input clk_a, input rst_a_n, input d, output reg a_q, input clk_b, input rst_b_n, output q);
  always @(posedge clk_a or negedge rst_a_n) if (!rst_a_n) a_q <= 1'b0; else a_q <= d;
  reg s1, s2;
  always @(posedge clk_b or negedge rst_b_n) if (!rst_b_n) {s2, s1} <= 2'b00; else {s2, s1} <= {s1, a_q};
  assign q = s2;
endmodule
"""
GOOD = """module sync2 (input clk_a, input rst_a_n, input d, output a_q, input clk_b, input rst_b_n, output q);
  reg src;
  reg [1:0] chain;
  always @(posedge clk_a or negedge rst_a_n)
    if (~rst_a_n) src <= 1'b0;
    else src <= d;
  always @(posedge clk_b or negedge rst_b_n)
    if (rst_b_n == 1'b0) chain <= 2'd0;
    else chain <= {chain[0], src};
  assign a_q = src;
  assign q = chain[1];
endmodule
"""
ONE_FLOP = GOOD.replace("assign q = chain[1];", "assign q = chain[0];")
SWAPPED = GOOD.replace("posedge clk_b or", "posedge clk_a or")
CLOCKS = [{"name": "clk_a", "domain": "a", "period_ns": 10}, {"name": "clk_b", "domain": "b", "period_ns": 7}]
RESETS = [{"name": "rst_a_n", "active": "low", "sync": False, "domain": "a"},
          {"name": "rst_b_n", "active": "low", "sync": False, "domain": "b"}]
PORTS = [{"name": "d", "dir": "input", "width": 1, "domain": "a"},
         {"name": "a_q", "dir": "output", "width": 1, "domain": "a"},
         {"name": "q", "dir": "output", "width": 1, "domain": "b"}]


def _design(tmp_path: Path, **iface_changes: object) -> Path:
    d = tmp_path / "sync2"
    d.mkdir(exist_ok=True)
    (d / "spec.md").write_text("A bit registered in domain a and synchronized into domain b by two flops.\n")
    for name, text in (("ref.v", REF), ("good.v", GOOD), ("one_flop.v", ONE_FLOP), ("swapped.v", SWAPPED)):
        (d / name).write_text(text)
    iface = {"clocks": CLOCKS, "resets": RESETS, "ports": PORTS, **iface_changes}
    data = {"name": "sync2", "top": "sync2", "spec": "spec.md", "interface": iface,
            "verification": {"reference": "ref.v", "timeout_s": 20, "differential": {"cycles": 120, "seed": 4}}}
    p = d / "design.yaml"
    p.write_text(yaml.safe_dump(data, sort_keys=False))
    return p


def _gate(tmp_path: Path, p: Path, rtl: str, overrides: dict[str, object] | None = None):
    d = load_design(p, overrides)
    return run_gates(Candidate.from_paths([p.parent / rtl], top=d.top), d, tmp_path / rtl.removesuffix(".v"))


@pytest.mark.tools
def test_dual_clock_synchronizer_passes_with_both_clocks_driven(tmp_path: Path) -> None:
    rep = _gate(tmp_path, _design(tmp_path), "good.v")
    assert rep.passed, rep.to_dict()
    bench = next((tmp_path / "good").glob("*-simulation/differential/hh_diff_tb.v")).read_text()
    assert "always #5 clk_a = ~clk_a;" in bench  # the main clock: 10 ns per bench cycle
    assert "#0.15; forever begin clk_b = ~clk_b; #4; end" in bench  # 7 ns : 10 ns, edges off the bench's events
    assert "rst_b_n = stim_reset_rst_b_n[k];" in bench and "rst_a_n = stim_reset[k];" in bench


@pytest.mark.tools
@pytest.mark.parametrize("rtl", ["one_flop.v", "swapped.v"])
def test_a_wrong_synchronizer_fails_the_differential_bench(tmp_path: Path, rtl: str) -> None:
    rep = _gate(tmp_path, _design(tmp_path), rtl)
    f = rep.failed
    assert f is not None and f.gate == "simulation" and "output `q`" in f.message, rep.to_dict()


@pytest.mark.tools
def test_sta_gets_one_clock_per_domain(tmp_path: Path) -> None:
    p = _design(tmp_path)
    work = tmp_path / "ppa"
    res = subprocess.run([sys.executable, "-m", "hyperheurist", "ppa", str(p), str(p.parent / "good.v"), "--json",
                          "--workdir", str(work), "--no-cache"], capture_output=True, text=True, timeout=600,
                         check=False)
    assert res.returncode == 0, res.stderr
    tcl = next(work.rglob("sta.tcl")).read_text()
    assert "create_clock -name hh_clk -period 10 [get_ports {clk_a}]" in tcl
    assert "create_clock -name hh_clk_clk_b -period 7 [get_ports {clk_b}]" in tcl
    assert "set_output_delay 0 -clock hh_clk_clk_b [get_ports {q}]" in tcl
    assert "set_clock_groups -asynchronous -group hh_clk -group hh_clk_clk_b" in tcl
    assert "set_false_path -from [get_ports {rst_b_n}]" in tcl
    assert json.loads(res.stdout)["delay_ns"] > 0


def test_formal_refuses_asynchronous_domains_at_load(tmp_path: Path) -> None:
    p = _design(tmp_path)
    with pytest.raises(ConfigError, match=r"verification\.equivalence\.enabled: several clock domains"):
        load_design(p, {"verification.equivalence.enabled": True})


@pytest.mark.tools
def test_formal_proves_declared_synchronous_clocks(tmp_path: Path) -> None:
    p = _design(tmp_path, synchronous_clocks=True, clocks=[CLOCKS[0], {**CLOCKS[1], "period_ns": 10}])
    rep = _gate(tmp_path, p, "good.v", {"verification.equivalence.enabled": True})
    assert rep.passed, rep.to_dict()
    bench = next((tmp_path / "good").glob("*-simulation/differential/hh_diff_tb.v")).read_text()
    assert "#5; forever begin clk_b = ~clk_b; #5; end" in bench  # rises with every edge of clk_a
    eq = next(r for r in rep.results if r.gate == "equivalence")
    assert eq.details["verdict"] == "proven", eq.message


@pytest.mark.tools
def test_a_counterexample_on_lockstep_clocks_is_replayed_with_every_clock_and_reset(tmp_path: Path) -> None:
    p = _design(tmp_path, synchronous_clocks=True, clocks=[CLOCKS[0], {**CLOCKS[1], "period_ns": 10}])
    d = load_design(p, {"verification.equivalence.enabled": True})
    rep = run_gates(Candidate.from_paths([p.parent / "one_flop.v"], top=d.top), d, tmp_path / "w", only=["equivalence"])
    eq = next(r for r in rep.results if r.gate == "equivalence")
    assert eq.details["verdict"] == "refuted", eq.message  # Icarus reproduced it: not "solver and simulator disagree"
    bench = next((tmp_path / "w").glob("*-equivalence/replay/hh_replay_tb.v")).read_text()
    assert "#5; forever begin clk_b = ~clk_b; #5; end" in bench and "rst_b_n = stim_reset_rst_b_n[k];" in bench


def test_formal_refuses_synchronous_clocks_of_different_periods(tmp_path: Path) -> None:
    """In lockstep a flop moved to a clock of twice the period is equal; in silicon it is not."""
    p = _design(tmp_path, synchronous_clocks=True, clocks=[CLOCKS[0], {**CLOCKS[1], "period_ns": 20}])
    with pytest.raises(ConfigError, match=r"share every edge \(one period_ns for all\)"):
        load_design(p, {"verification.equivalence.enabled": True})


@pytest.mark.parametrize(("change", "words"), [
    ({"ports": [*PORTS[:2], {**PORTS[2], "domain": "c"}]}, "port q: domain 'c' is not a clock's"),
    ({"resets": [{**RESETS[0], "domain": "z"}]}, "reset rst_a_n: domain 'z'"),
    ({"clocks": [CLOCKS[0], {**CLOCKS[1], "domain": "a"}]}, "two clocks of one domain"),
    ({"clock": "clk_a"}, "give clock or clocks, not both"),
    ({"resets": [RESETS[0], {**RESETS[1], "name": "rst_a_n"}]}, "named twice as a clock or reset: rst_a_n"),
])
def test_bad_domains_are_one_line_naming_the_field(tmp_path: Path, change: dict[str, object], words: str) -> None:
    p = _design(tmp_path, **change)
    with pytest.raises(ConfigError, match=r"interface: ") as exc:
        load_design(p)
    assert words in str(exc.value) and "\n" not in str(exc.value), exc.value


def test_one_clock_spelling_is_a_one_element_list_and_round_trips(tmp_path: Path) -> None:
    p = _design(tmp_path)
    data = yaml.safe_load(p.read_text())
    data["interface"] = {"clock": "clk_a", "reset": {"name": "rst_a_n"},
                         "ports": [{k: v for k, v in port.items() if k != "domain"} for port in PORTS[:2]]}
    p.write_text(yaml.safe_dump(data))
    d = load_design(p)
    assert d.interface.clock == "clk_a" and d.interface.reset is not None and d.interface.reset.name == "rst_a_n"
    assert [c.name for c in d.interface.clocks] == ["clk_a"] and not d.interface.asynchronous_domains
    resolved = yaml.safe_load(d.resolved_yaml())["interface"]
    assert resolved["clock"] == "clk_a" and resolved["reset"]["name"] == "rst_a_n" and "clocks" not in resolved
    (p.parent / "resolved.yaml").write_text(d.resolved_yaml())
    assert load_design(p.parent / "resolved.yaml").interface == d.interface


@pytest.mark.tools
def test_formal_asked_for_on_the_command_line_is_refused_too(tmp_path: Path) -> None:
    p = _design(tmp_path)
    res = subprocess.run([sys.executable, "-m", "hyperheurist", "gate", str(p), str(p.parent / "good.v"),
                          "--equivalence"], capture_output=True, text=True, timeout=600, check=False)
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert "interface.clocks: several clock domains (a, b)" in lines[0]


@pytest.mark.tools
def test_activity_power_drives_every_clock_and_reset(tmp_path: Path) -> None:
    """Gate-level activity simulation runs the second domain's clock and reset on their own schedules (as the
    differential bench does), never as random data."""
    from hyperheurist.estimate import estimate
    from hyperheurist.recipe import load_flow

    d = load_design(_design(tmp_path))
    cand = Candidate.from_paths([tmp_path / "sync2" / "good.v"], top=d.top)
    m = estimate(cand, d, load_flow(d.ppa.flow).recipe, tmp_path / "ppa", power="activity")
    assert m.power_fidelity == "activity" and m.dynamic_mw > 0
    bench = next((tmp_path / "ppa").glob("*-power/hh_act_tb.v")).read_text()
    assert "forever begin clk_b = ~clk_b; #4; end" in bench and "rst_b_n = stim_reset_rst_b_n[k];" in bench
    assert "stim_clk_b" not in bench and "stim_rst_b_n" not in bench  # no random vectors for clocks or resets
    assert (next((tmp_path / "ppa").glob("*-power")) / "stim_reset_rst_b_n.hex").is_file()
