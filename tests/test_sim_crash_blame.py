"""A simulator that crashes on one design is that design's failed gate (exit 1); one that crashes on the known-good
design too (the reference in the candidate's place, else a canary) is a broken tool (exit 3), as for Yosys
(tests/test_crash_blame.py) and by the same mechanism (``stages.crash.blame_by``).

Before: a vvp crash in the simulation gate's differential or self-checking bench and in the netlist simulation was
always exit 3 (a tool fault: in ``hh run`` three such candidates stopped the search); in a cocotb run it was exit 1
with "no results" and nobody asked whose fault it was; an Icarus compile that crashed with no error reported was
exit 3 whatever the design.

The real crash: Icarus 11's vvp dies on SIGSEGV (its stack) when an automatic function recurses 200,000 deep
(measured here: 20,000 and 100,000 run, 130,000 and more crash at ~320 MB, within the default 4096 MB cap).
Crashes on the known-good design are forced with wrappers named by HH_VVP / HH_IVERILOG; the netlist simulation's
candidate crash too (Yosys does not finish the recursive function, so such a design never reaches that stage).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from cli_inproc import hh_in_process

pytestmark = pytest.mark.tools

FLOW = Path(__file__).parent / "data" / "flow"
ALU = Path(__file__).parent / "data" / "gates" / "alu"
RECURSION = """  function automatic integer depth(input integer n);
    if (n <= 0) depth = 0; else depth = depth(n - 1) + 1;
  endfunction
  integer deep;
  initial deep = depth(200000);
"""
# the reference's function, and a recursion 200,000 deep that crashes vvp
CRASHES_VVP = ("module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);\n"
               "  assign y = (a << 3) + (a << 1) + b + c + d;\n" + RECURSION + "endmodule\n")
# a design with a name a wrapper recognises in what it is given (the source, or the image compiled from it)
POISON = """module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);
  wire [11:0] crashme_sum = (a << 3) + (a << 1) + b;
  assign y = crashme_sum + c + d;
endmodule
"""
TB = """module tb;
  reg [7:0] a, b, c, d;
  wire [11:0] y;
  mac_small dut(.a(a), .b(b), .c(c), .d(d), .y(y));
  initial begin
    a = 1; b = 2; c = 3; d = 4;
    #1 if (y == 12'd19) $display("PASSED"); else $display("FAIL y=%0d", y);
    $finish;
  end
endmodule
"""


def wrapper(tmp: Path, tool: str, always: bool) -> Path:
    """A ``tool`` that dies on SIGSEGV when a file it is given names ``crashme`` (or always), else the real one."""
    from hyperheurist.tools import tool_path

    folder = tmp / "fake"
    folder.mkdir(exist_ok=True)
    script = folder / tool  # named as the tool: cocotb's build finds vvp by PATH, the wrapper's folder first
    crash = ("kill -SEGV $$" if always
             else 'for a in "$@"; do [ -f "$a" ] && grep -qs crashme "$a" && kill -SEGV $$; done')
    script.write_text(f"""#!/bin/sh
{crash}
exec {tool_path(tool)} "$@"
""")
    script.chmod(0o755)
    return script


def design(tmp: Path, source: Path, rtl: str, yaml_edit: tuple[str, str] | None = None) -> tuple[Path, Path]:
    """A copy of the design folder ``source`` (design.yaml edited by ``yaml_edit``) and ``rtl`` beside it."""
    d = tmp / "design"
    shutil.copytree(source, d)
    if yaml_edit is not None:
        y = d / "design.yaml"
        text = y.read_text()
        assert yaml_edit[0] in text
        y.write_text(text.replace(*yaml_edit))
    cand = d / "candidate.v"
    cand.write_text(rtl)
    return d / "design.yaml", cand


def hh(tmp: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """cli.main in this process: the exit code and the words are what these tests check (the crash is the tool's,
    in the tool's own process)."""
    res = hh_in_process(*args, env={"HH_CACHE_DIR": str(tmp / "cache"), **(env or {})})
    assert "Traceback" not in res.stderr and "internal error" not in res.stderr, res.stderr
    return res


@pytest.mark.slow
def test_a_vvp_crash_on_the_candidate_only_fails_the_differential_check(tmp_path: Path) -> None:
    """Before: exit 3, "vvp-differential crashed (SIGSEGV) on <digest>"."""
    yaml, cand = design(tmp_path, FLOW, CRASHES_VVP)
    res = hh(tmp_path, "gate", str(yaml), str(cand), "--only", "simulation", "--workdir", str(tmp_path / "wd"))
    assert res.returncode == 1, res.stdout + res.stderr
    assert ("differential simulation: vvp-differential crashed (SIGSEGV): crashed on this design only "
            "(the reference passes the same bench)") in res.stdout, res.stdout
    # the reference ran in the candidate's place, in the same bench, and passed
    kg = tmp_path / "wd" / "02-simulation" / "known-good" / "differential"
    assert "HH_PASS_" in (kg / "vvp-differential-known-good.stdout").read_text()


def test_a_vvp_that_crashes_on_the_reference_too_is_a_tool_fault(tmp_path: Path) -> None:
    """Before: exit 3 too, but on the candidate's crash alone; now only after the reference crashed as well."""
    yaml, cand = design(tmp_path, FLOW, POISON)
    res = hh(tmp_path, "gate", str(yaml), str(cand), "--only", "simulation",
             env={"HH_VVP": str(wrapper(tmp_path, "vvp", always=True))})
    assert res.returncode == 3, res.stdout + res.stderr
    assert ("vvp-differential-known-good crashed (SIGSEGV) on the reference too: the tool is broken, not the design"
            in res.stderr), res.stderr


def test_a_vvp_crash_on_the_candidate_only_by_a_wrapper_is_a_failed_gate(tmp_path: Path) -> None:
    """The wrapper that crashes on ``crashme`` (the image names the design's wire) lets the reference through:
    the same wrapper is then a believable judge in the netlist and compile tests below."""
    yaml, cand = design(tmp_path, FLOW, POISON)
    res = hh(tmp_path, "gate", str(yaml), str(cand), "--only", "simulation",
             env={"HH_VVP": str(wrapper(tmp_path, "vvp", always=False))})
    assert res.returncode == 1, res.stdout + res.stderr
    assert "vvp-differential crashed (SIGSEGV): crashed on this design only (the reference passes" in res.stdout


def test_a_crash_on_the_reference_itself_is_a_tool_fault(tmp_path: Path) -> None:
    """Nothing is known good when the candidate is the reference: its crash is the tool's at once."""
    res = hh(tmp_path, "gate", str(FLOW / "design.yaml"), str(FLOW / "reference.v"), "--only", "simulation",
             env={"HH_VVP": str(wrapper(tmp_path, "vvp", always=True))})
    assert res.returncode == 3, res.stdout + res.stderr
    assert "the tool crashed on the reference itself" in res.stderr, res.stderr


TB_YAML = ("  differential: {cycles: 200, seed: 1}\n",
           "  differential: {enabled: false, cycles: 200, seed: 1}\n  testbench: tb.v\n")


@pytest.mark.slow
@pytest.mark.parametrize("reference, which", [(True, "the reference"), (False, "the canary design")])
def test_a_vvp_crash_in_the_self_checking_bench_is_blamed(tmp_path: Path, reference: bool, which: str) -> None:
    """The user's bench with the reference in the candidate's place; with no reference, vvp on the canary."""
    yaml, cand = design(tmp_path, FLOW, CRASHES_VVP, TB_YAML)
    (yaml.parent / "tb.v").write_text(TB)
    if not reference:
        yaml.write_text(yaml.read_text().replace("  reference: reference.v\n", ""))
    res = hh(tmp_path, "gate", str(yaml), str(cand), "--only", "simulation")
    assert res.returncode == 1, res.stdout + res.stderr
    assert (f"testbench simulation: vvp-testbench crashed (SIGSEGV): crashed on this design only ({which} passes "
            f"the same bench)") in res.stdout, res.stdout


def test_a_vvp_crash_in_the_self_checking_bench_on_the_reference_too_is_a_tool_fault(tmp_path: Path) -> None:
    yaml, cand = design(tmp_path, FLOW, POISON, TB_YAML)
    (yaml.parent / "tb.v").write_text(TB)
    res = hh(tmp_path, "gate", str(yaml), str(cand), "--only", "simulation",
             env={"HH_VVP": str(wrapper(tmp_path, "vvp", always=True))})
    assert res.returncode == 3, res.stdout + res.stderr
    assert "vvp-testbench-known-good crashed (SIGSEGV) on the reference too: the tool is broken" in res.stderr


COCOTB_ONLY = ("  differential: {cycles: 200, seed: 3}\n", "  differential: {enabled: false, cycles: 200, seed: 3}\n")
ALU_CRASH = ("module alu (input [7:0] a, input [7:0] b, input [1:0] op, output [7:0] y);\n"
             "    wire [7:0] sum = a + (op[0] ? ~b : b) + {7'd0, op[0]};\n"
             "    assign y = op[1] ? (op[0] ? a ^ b : a & b) : sum;\n" + RECURSION + "endmodule\n")


@pytest.mark.slow
def test_a_vvp_crash_under_cocotb_is_blamed_on_the_candidate(tmp_path: Path) -> None:
    """Before: exit 1 with "no results: ..." and no one asked whether vvp was broken."""
    yaml, cand = design(tmp_path, ALU, ALU_CRASH, COCOTB_ONLY)
    res = hh(tmp_path, "gate", str(yaml), str(cand), "--only", "simulation")
    assert res.returncode == 1, res.stdout + res.stderr
    assert ("cocotb test_alu: cocotb-test crashed (SIGSEGV): crashed on this design only (the reference passes "
            "the same cocotb test)") in res.stdout, res.stdout


@pytest.mark.slow
def test_a_vvp_that_crashes_under_cocotb_on_the_reference_too_is_a_tool_fault(tmp_path: Path) -> None:
    """Before: exit 1, "no results": a broken simulator called every candidate invalid."""
    yaml, cand = design(tmp_path, ALU, (ALU / "good.v").read_text(), COCOTB_ONLY)
    res = hh(tmp_path, "gate", str(yaml), str(cand), "--only", "simulation",
             env={"HH_VVP": str(wrapper(tmp_path, "vvp", always=True))})
    assert res.returncode == 3, res.stdout + res.stderr
    assert "cocotb-test crashed (SIGSEGV) on the reference too: the tool is broken, not the design" in res.stderr


@pytest.mark.slow
@pytest.mark.parametrize("always, code, words", [
    (False, 1, "netlist simulation: vvp-netlist crashed (SIGSEGV): crashed on this design only (the reference "
               "passes the same bench)"),
    (True, 3, "vvp-netlist-known-good crashed (SIGSEGV) on the reference too: the tool is broken"),
])
def test_a_vvp_crash_in_the_netlist_simulation_is_blamed(tmp_path: Path, always: bool, code: int,
                                                         words: str) -> None:
    """Before: exit 3 either way ("vvp-netlist crashed (SIGSEGV) on <digest>")."""
    yaml, cand = design(tmp_path, FLOW, POISON)
    res = hh(tmp_path, "gate", str(yaml), str(cand), "--only", "synthesis", "--only", "netlist_sim",
             env={"HH_VVP": str(wrapper(tmp_path, "vvp", always=always))})
    assert res.returncode == code, res.stdout + res.stderr
    assert words in res.stdout + res.stderr, res.stdout + res.stderr


@pytest.mark.slow
@pytest.mark.parametrize("always, code, words", [
    (False, 1, "netlist simulation: vvp-netlist crashed (SIGSEGV): crashed on this design only (the canary design "
               "passes the same bench)"),
    (True, 3, "vvp-canary crashed (SIGSEGV) on the canary design too: the tool is broken"),
])
def test_the_ppa_netlist_simulation_blames_by_the_canary(tmp_path: Path, always: bool, code: int,
                                                        words: str) -> None:
    """``hh ppa`` has no reference in its stages: vvp on the canary decides."""
    yaml, cand = design(tmp_path, FLOW, POISON)
    res = hh(tmp_path, "ppa", str(yaml), str(cand), "--no-cache",
             env={"HH_VVP": str(wrapper(tmp_path, "vvp", always=always))})
    assert res.returncode == code, res.stdout + res.stderr
    assert words in res.stdout + res.stderr, res.stdout + res.stderr


@pytest.mark.parametrize("always, code, words", [
    (False, 1, "iverilog: iverilog crashed (SIGSEGV) with no error reported: crashed on this design only "
               "(the reference passes the same compile)"),
    (True, 3, "iverilog, with no error reported in the design: iverilog-known-good crashed (SIGSEGV) on the "
              "reference too: the tool is broken"),
])
def test_an_icarus_compile_crash_with_no_error_reported_is_blamed(tmp_path: Path, always: bool, code: int,
                                                                  words: str) -> None:
    """Before: exit 3 whatever the design (a silent Icarus crash was always the tool's)."""
    yaml, cand = design(tmp_path, FLOW, POISON)
    res = hh(tmp_path, "gate", str(yaml), str(cand), "--only", "compile",
             env={"HH_IVERILOG": str(wrapper(tmp_path, "iverilog", always=always))})
    assert res.returncode == code, res.stdout + res.stderr
    assert words in res.stdout + res.stderr, res.stdout + res.stderr


@pytest.mark.slow
def test_hh_run_goes_on_past_candidates_that_crash_the_simulator(tmp_path: Path) -> None:
    """Three seeds that crash vvp are invalid designs (their simulation gate failed) and the run has no
    infrastructure fault. Before: each was a tool fault (summary.json: infrastructure_faults count 3), which in a
    search counts towards stopping it as "repeated tool faults". (The wrapper stands in for the real crash: a
    recursion deep enough to crash vvp stops Yosys' structure check first, at the tool timeout.) No finishing
    descents (anneal.polish=0): they made 36 of the run's 41 evaluations, and Phase 1's verdicts are the point."""
    import json

    seeds = tmp_path / "seeds"
    seeds.mkdir()
    for i in range(3):
        (seeds / f"crash_{i}.v").write_text(POISON.replace("crashme_sum", f"crashme_sum{i}"))
    shutil.copy(FLOW / "seeds" / "ok_1_naive.v", seeds / "zz_good.v")
    res = hh(tmp_path, "run", str(FLOW / "design.yaml"), "--out", str(tmp_path / "runs"), "--quiet", "--no-report",
             "--jobs", "1", "--set", f"generation.seeds={seeds}/*.v", "--set", "anneal.iterations=1",
             "--set", "anneal.chains=1", "--set", "anneal.polish=0",
             env={"HH_VVP": str(wrapper(tmp_path, "vvp", always=False))})
    assert res.returncode == 0, res.stdout + res.stderr
    summary = json.loads((next((tmp_path / "runs").glob("*/*")) / "summary.json").read_text())
    entries = {e["label"]: e for e in summary["phase1"]["entries"]}
    assert entries["zz_good"]["verdict"] == "valid", entries
    for i in range(3):
        e = entries[f"crash_{i}"]
        assert e["verdict"] == "invalid" and e["gate"] == "simulation", e
        assert "crashed on this design only (the reference passes the same bench)" in e["message"], e
    assert not (summary.get("infrastructure_faults") or {}).get("count"), summary.get("infrastructure_faults")
