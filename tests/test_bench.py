"""tools/bench.py on one tiny generated design: the functions work (no timing assertions)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))

import bench  # type: ignore[import-not-found, unused-ignore]  # noqa: E402  (tools/ is on sys.path only at run time)

pytestmark = pytest.mark.tools


def test_parse_commands_reads_run_tool_records(tmp_path: Path) -> None:
    stage = tmp_path / "02-compile"
    stage.mkdir()
    (stage / "COMMANDS").write_text(
        "# iverilog: iverilog ok in 0.04 s\n"
        f"cd {tmp_path / '02-compile'} && /usr/bin/iverilog -g2012 -o 'a b.vvp' x.v\n"
        "# verilator: verilator exited with code 1\n"
        f"cd {tmp_path / '02-compile'} && verilator --lint-only x.v\n")
    cmds = bench.parse_commands(tmp_path)
    assert [c.name for c in cmds] == ["iverilog", "verilator"]
    assert cmds[0].argv == ["/usr/bin/iverilog", "-g2012", "-o", "a b.vvp", "x.v"]
    assert cmds[0].cwd == stage and cmds[0].recorded_s == 0.04 and cmds[1].recorded_s is None


def test_bench_functions_on_a_tiny_adder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HH_CACHE_DIR", str(tmp_path / "cache"))
    design, cand = bench.size_design("adder", 4, tmp_path / "adder4")
    assert design.verification.equivalence.enabled and cand.top == "adder4"

    over = bench.measure_overhead(design, cand, tmp_path, repeats=1)
    assert over["commands"] >= 5  # iverilog, verilator, yosys (structure), iverilog+vvp, yosys (equiv), synth, sta
    assert over["hh_s"] > 0 and over["tool_s"] > 0 and (over["cells"] or 0) > 0
    assert {"compile", "structure", "simulation", "equivalence", "synth_s", "sta_s"} <= set(over["stages"])
    assert over["second_eval_s"] > 0 and over["cache_hit_s"] >= 0
    assert over["netlist_sim_s"] > 0 and 0 < over["netlist_sim_share"] < 1  # the scored netlist was simulated

    size = bench.measure_size("mult", 4, tmp_path)
    assert (size.get("cells") or 0) > 0 and "equivalence" not in size["stages"]

    cands = [(design, cand), bench.size_design("adder", 5, tmp_path / "adder5")]
    pool = bench.measure_pool(cands, 2, tmp_path)
    assert pool["valid"] == 2 and pool["jobs"] == 2

    runs: list[bench.PoolSummary] = [{"jobs": 2, "wall_s": pool["wall_s"], "walls": [pool["wall_s"]], "valid": 2}]
    res: bench.Results = {"when": "now", "host": {"cpus": 2, "python": "3", "platform": "linux"},
                          "settings": {"repeats": 1, "benchmarks": ["adder4"]}, "overhead": [over],
                          "pool": {"candidates": 2, "labels": ["a", "b"], "runs": runs, "repeats": 1}, "sizes": [size]}
    md = bench.render(res)
    assert "| adder4 |" in md and "hh share" in md and "| mult | 4 |" in md and "speed-up" in md
    assert "netlist_sim (the scored netlist simulated beside its RTL" in md


def test_sandbox_cost_in_alternating_pairs_with_the_tools_launched(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HH_CACHE_DIR", str(tmp_path / "cache"))
    design, cand = bench.size_design("adder", 4, tmp_path / "adder4")
    sb = bench.measure_sandbox(design, cand, tmp_path, repeats=2)
    assert len(sb["walls"]["required"]) == len(sb["walls"]["off"]) == len(sb["pair_ratios"]) == 2
    assert sb["tool_calls"] == len(sb["launches"]) >= 5
    assert any(n.startswith("yosys") for n in sb["launches"]) and "iverilog" in sb["launches"]
    assert any(n.startswith("ivlpp") for n in sb["launches"])  # each evaluation preprocesses afresh
    md = "\n".join(bench.render_sandbox([sb, {**sb, "design": "other"}]))
    assert f"- adder4, other ({sb['tool_calls']}): " in md and "over 2 adjacent pairs" in md


def test_one_launch_part_by_part(tmp_path: Path) -> None:
    rows = bench.measure_launch(tmp_path, repeats=2)
    names = [r["variant"].strip() for r in rows]
    assert {"no sandbox", "hh's command line", "without --unshare-net", "run_tool, sandbox required",
            "run_tool, sandbox off"} <= set(names)
    assert all(r["p10_ms"] > 0 and r["median_ms"] >= r["p10_ms"] for r in rows)
    md = "\n".join(bench.render_launch(rows, 2))
    assert "| hh's command line |" in md and "+0.00 |" in md and "(2 rounds" in md
