"""Every bundled benchmark: reference.v and every seed marked valid pass every gate; every seed
marked faulty is rejected. Runs the same gate chain as `hh gate` (one CLI call on a benchmark is
checked too, for the exit codes)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_inproc import hh_in_process
from seednames import kind_by_name

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
NAMES = sorted(p.parent.name for p in BENCH.glob("*/design.yaml"))
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
    bad = sorted((b / "seeds").glob("bad_*.v"))[0]
    ok = hh_in_process("gate", str(b / "design.yaml"), str(b / "reference.v"), "--workdir", str(tmp_path / "ok"))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "PASS  equivalence" in ok.stdout, ok.stdout  # every gate ran, the formal one too
    junit = tmp_path / "gate.xml"
    fail = hh_in_process("gate", str(b / "design.yaml"), str(bad), "--junit", str(junit),
                         "--workdir", str(tmp_path / "bad"))
    assert fail.returncode == 1, fail.stdout + fail.stderr
    assert "<testcase" in junit.read_text() and "<failure" in junit.read_text()
