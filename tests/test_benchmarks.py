"""Every bundled benchmark: reference.v and every seed marked valid pass every gate; every seed
marked faulty is rejected. Runs the same gate chain as `hh gate` (one CLI call on a benchmark is
checked too, for the exit codes; the two files it gates are not gated again).

Where the time goes (the gates' walls summed over the module, load ~7): netlist_sim 28% and simulation 27% (each
runs the benchmark's cocotb test, on the gate's netlist and on the RTL, for every valid candidate), equivalence
18%, structure 10%, synthesis 9%, compile 6%, safety 3%. The proofs are ~0.5 s each on a quiet machine
(results/formal.md) but fifo8 ok_1_naive's scorr+pdr (~7 s), and none repeats another. The four benchmarks with
`against: parent` (div16, fir4, mac16, mult8_pipe) skip the equivalence gate against the reference; `make formal`
records their seeds' verdicts (proven, bounded or inconclusive in its budget) without failing on them."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_inproc import hh_in_process
from seednames import kind_by_name

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
NAMES = sorted(p.parent.name for p in BENCH.glob("*/design.yaml"))
# what test_hh_gate_exit_codes_on_a_benchmark gates through `hh gate` (the same run_gates chain; exit 0: every gate
# passed, 1: one failed): test_benchmark_verdicts leaves these two out rather than run their chains twice
CLI_GATED = {"traffic_fsm": ("reference.v", "bad_latch.v")}
pytestmark = pytest.mark.tools


def test_all_eight_benchmarks_exist() -> None:
    assert set(NAMES) >= {"adder32", "mult8_pipe", "div16", "mac16", "fir4", "crc32", "traffic_fsm", "fifo8"}


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_benchmark_verdicts(name: str, tmp_path: Path) -> None:
    from hyperheurist.gating import run_gates

    design = load_design(BENCH / name / "design.yaml")
    seeds = design.generation.seed_files()
    labels = {p.name: kind_by_name(p) for p in seeds}  # headers agree: test_benchmark_sources.py
    assert sum(v == "valid" for v in labels.values()) >= 2 and sum(v == "faulty" for v in labels.values()) >= 2
    cases = [("reference.v", design.verification.reference, "valid")] + [(p.name, p, labels[p.name]) for p in seeds]
    wrong = []
    for label, path, expected in cases:
        if label in CLI_GATED.get(name, ()):
            continue
        report = run_gates(Candidate.from_paths([path], design.top, label=label), design, tmp_path / label)
        got = "valid" if report.passed else "faulty"
        if got != expected:
            wrong.append(f"{label}: expected {expected}, got {got} ({report.failed.gate if report.failed else ''}: "
                         f"{report.failed.message if report.failed else ''})")
    assert not wrong, "\n".join(wrong)


@pytest.mark.slow
def test_hh_gate_exit_codes_on_a_benchmark(tmp_path: Path) -> None:
    """cli.main in this process: the exit codes and the JUnit file are the point (traffic_fsm: the benchmark whose
    full chain is cheapest)."""
    b = BENCH / "traffic_fsm"
    bad = b / "seeds" / CLI_GATED["traffic_fsm"][1]
    assert kind_by_name(bad) == "faulty"
    ok = hh_in_process("gate", str(b / "design.yaml"), str(b / "reference.v"), "--workdir", str(tmp_path / "ok"))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "PASS  equivalence" in ok.stdout, ok.stdout  # every gate ran, the formal one too
    junit = tmp_path / "gate.xml"
    fail = hh_in_process("gate", str(b / "design.yaml"), str(bad), "--junit", str(junit),
                         "--workdir", str(tmp_path / "bad"))
    assert fail.returncode == 1, fail.stdout + fail.stderr
    assert "<testcase" in junit.read_text() and "<failure" in junit.read_text()
