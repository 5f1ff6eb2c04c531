"""Every bundled benchmark: reference.v passes every gate, every seed marked valid passes every gate and every
seed marked faulty is refuted by the gate named in REFUTED_BY. Runs the same gate chain as `hh gate` (one CLI call
on a benchmark is checked too, for the exit codes; the two files it gates are not gated again, nor the two another
module gates through the same chain with the same verdict asserted: GATED_ELSEWHERE). Every source reaches the
compile gate (Icarus -g2012, then Verilator) and passes it: the faulty seeds' flaws are structural or behavioural.

Where the time goes (the gates' walls summed over the module, load ~7): netlist_sim 24% and simulation 22% (each
runs the benchmark's cocotb test, on the gate's netlist and on the RTL, for every valid candidate), equivalence
20%, structure 12%, synthesis 10%, compile 8%, safety 3%; the faulty seeds 14% of it. The proofs are ~0.5 s each
on a quiet machine (results/formal.md), but fifo8 ok_1_naive's scorr+pdr (~7 s, ~16 s loaded): that one is
`make formal`'s (NO_PROOF). The four benchmarks with `against: parent` (div16, fir4, mac16, mult8_pipe) skip the
equivalence gate against the reference; `make formal` records their seeds' verdicts (proven, bounded or
inconclusive in its budget) without failing on them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from cli_inproc import hh_in_process
from seednames import kind_by_name

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.gates.result import GATES
from hyperheurist.stages.model import StageId

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
NAMES = sorted(p.parent.name for p in BENCH.glob("*/design.yaml"))
# what test_hh_gate_exit_codes_on_a_benchmark gates through `hh gate` (the same run_gates chain; exit 0: every gate
# passed, 1: one failed): test_benchmark_verdicts leaves these two out rather than run their chains twice
CLI_GATED = {"traffic_fsm": ("reference.v", "bad_latch.v")}
# files another module's test gates with run_gates on this design.yaml, the whole chain, asserting the same verdict
# (test_gated_elsewhere_still_is checks that those tests still name them): not gated a second time here
GATED_ELSEWHERE = {"adder32": {
    "ok_1_naive.v": ("test_synthesis_verdict.py", "test_hh_gate_synthesizes_in_its_own_stage", "assert rep.passed"),
    "bad_carry_index.v": ("test_synthesis_verdict.py", "test_the_first_failing_stage_gives_the_verdict",
                          'rep.failed.gate == "simulation"'),
}}
# valid seeds gated with the equivalence gate off: their proof against the reference is `make formal`'s (the same
# check, same design and budget: tools/mutants.py's "Reference against itself and against each valid seed" table,
# which records the verdict but does not fail on it). A proof that passes is not a refutation: nothing that rejects
# a broken design moves. fifo8 ok_1_naive: scorr+pdr ~7 s quiet, ~16 s loaded, the module's costliest check.
NO_PROOF = {"fifo8": {"ok_1_naive.v"}}
# the gate that refutes each faulty seed (the first one failing); simulation with the check that saw it
REFUTED_BY = {
    "adder32": {"bad_carry_index.v": "simulation/differential", "bad_latch.v": "structure",
                "bad_truncated_carry.v": "simulation/differential"},
    "crc32": {"bad_init_priority.v": "simulation/differential", "bad_latch.v": "structure",
              "bad_nonblocking_loop.v": "simulation/differential", "bad_not_reflected.v": "simulation/differential"},
    "div16": {"bad_div_by_zero.v": "simulation/cocotb", "bad_multidriven.v": "structure",
              "bad_nonblocking_trial.v": "simulation/differential", "bad_off_by_one.v": "simulation/differential",
              "bad_quotient_width.v": "structure"},
    "fifo8": {"bad_blocking_rptr.v": "simulation/differential", "bad_count_width.v": "structure",
              "bad_full_off_by_one.v": "simulation/differential", "bad_latch.v": "structure",
              "bad_write_when_full.v": "simulation/differential"},
    "fir4": {"bad_latch.v": "structure", "bad_shift_on_idle.v": "simulation/differential",
             "bad_truncated_acc.v": "simulation/differential", "bad_unsigned_taps.v": "simulation/differential"},
    "mac16": {"bad_clr_priority.v": "simulation/differential", "bad_latch.v": "structure",
              "bad_product_width.v": "simulation/differential", "bad_unsigned_acc.v": "simulation/differential"},
    "mult8_pipe": {"bad_latch.v": "structure", "bad_latency.v": "simulation/differential",
                   "bad_reset_polarity.v": "simulation/differential",
                   "bad_truncated_product.v": "simulation/differential"},
    "traffic_fsm": {"bad_latch.v": "structure", "bad_multi_driven.v": "structure",
                    "bad_ped_not_latched.v": "simulation/differential",
                    "bad_yellow_off_by_one.v": "simulation/differential"},
}
pytestmark = pytest.mark.tools


def test_all_eight_benchmarks_exist() -> None:
    assert set(NAMES) >= {"adder32", "mult8_pipe", "div16", "mac16", "fir4", "crc32", "traffic_fsm", "fifo8"}
    assert set(REFUTED_BY) == set(NAMES)


def _verdict(report, expected: str, refuted_by: str | None) -> str | None:
    """What is wrong with ``report`` for a file expected ``expected`` (if faulty: refuted by ``refuted_by``, a gate
    or gate/check), or None."""
    f = report.failed
    if expected == "valid":
        return None if f is None else f"expected valid, got faulty ({f.gate}: {f.message})"
    if f is None:
        return "expected faulty, got valid"
    got = f"{f.gate}/{f.details.get('failed_check', '')}" if "/" in (refuted_by or "") else str(f.gate)
    return None if got == refuted_by else f"expected refuted by {refuted_by}, got {got} ({f.message})"


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_benchmark_verdicts(name: str, tmp_path: Path) -> None:
    from hyperheurist.gating import run_gates

    design = load_design(BENCH / name / "design.yaml")
    seeds = design.generation.seed_files()
    labels = {p.name: kind_by_name(p) for p in seeds}  # headers agree: test_benchmark_sources.py
    assert sum(v == "valid" for v in labels.values()) >= 2 and sum(v == "faulty" for v in labels.values()) >= 2
    assert set(REFUTED_BY[name]) == {n for n, v in labels.items() if v == "faulty"}
    cases = [("reference.v", design.verification.reference, "valid")] + [(p.name, p, labels[p.name]) for p in seeds]
    parent = design.verification.equivalence.against == "parent"
    wrong = []
    for label, path, expected in cases:
        if label in CLI_GATED.get(name, ()) or label in GATED_ELSEWHERE.get(name, {}):
            continue
        proof = label not in NO_PROOF.get(name, ())
        report = run_gates(Candidate.from_paths([path], design.top, label=label), design, tmp_path / label,
                           equivalence=None if proof else False)
        why = _verdict(report, expected, REFUTED_BY[name].get(label))
        if why is None and expected == "valid":  # every gate ran (the formal one as the design and NO_PROOF say)
            ran = [str(r.gate) for r in report.results if not r.skipped]
            want = [str(g) for g in GATES if not ((parent or not proof) and g == StageId.EQUIVALENCE)]
            sim = report.result(StageId.SIMULATION)
            if ran != want or sim is None or "cocotb" not in sim.details.get("checks", []):
                why = f"gates run: {ran}, expected {want}, simulation checks {sim.details if sim else None}"
        if why:
            wrong.append(f"{label}: {why}")
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
    sim = [ln for ln in ok.stdout.splitlines() if ln.startswith("PASS  simulation")]
    assert sim and "cocotb" in sim[0], ok.stdout  # the reference passes its cocotb test (test_benchmark_sources)
    junit = tmp_path / "gate.xml"
    fail = hh_in_process("gate", str(b / "design.yaml"), str(bad), "--junit", str(junit),
                         "--workdir", str(tmp_path / "bad"))
    assert fail.returncode == 1, fail.stdout + fail.stderr
    assert REFUTED_BY["traffic_fsm"][bad.name] == "structure"
    assert "PASS  compile" in fail.stdout and "FAIL  structure" in fail.stdout, fail.stdout
    assert "<testcase" in junit.read_text() and "<failure" in junit.read_text()


def test_gated_elsewhere_still_is() -> None:
    """Each GATED_ELSEWHERE file is still gated, on this benchmark's design.yaml, by the test named, which still
    asserts its verdict (reads that test's source; runs no tool)."""
    for name, files in GATED_ELSEWHERE.items():
        for seed, (module, test, verdict) in files.items():
            src = (Path(__file__).parent / module).read_text(encoding="utf-8")
            fn = next((n for n in ast.walk(ast.parse(src)) if isinstance(n, ast.FunctionDef) and n.name == test), None)
            assert fn is not None, f"{module}::{test} is gone: gate {name}/{seed} in test_benchmark_verdicts again"
            body = ast.get_source_segment(src, fn) or ""
            assert f'"{seed}"' in body and "run_gates(" in body and verdict in body, \
                f"{module}::{test} no longer gates {seed} asserting `{verdict}`: gate it here again"
            assert f'REPO / "benchmarks" / "{name}"' in src and 'load_design(BENCH / "design.yaml")' in src, \
                f"{module} no longer uses benchmarks/{name}/design.yaml"
