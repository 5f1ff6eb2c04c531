"""Resume equals the uninterrupted run (test_repro.py's set-up with fewer moves, a module of its own so that the
two halves run on both pytest-xdist workers): a tool fault hides a valid seed in Phase 1, or SIGKILL stops the run
in Phase 1 and the resumed run in Phase 2; resuming ends with the journal and summary of a run that never saw the
fault or the kills."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from processes import left_behind
from runrecord import check_run_record
from test_repro import HH, PARTS, fingerprint, resume, run_once, small_design

# a run to resume (and the module's uninterrupted reference, made in the first test's setup): past pytest's
# 300 s on 2 loaded cores (the 05:12 baseline)
pytestmark = [pytest.mark.tools, pytest.mark.slow, pytest.mark.timeout(900)]


def yosys_crashing_in(tmp: Path, marker: str) -> Path:
    """A yosys that crashes (SIGSEGV) when it runs in a folder whose path holds ``marker`` (one candidate's
    digest): a tool fault on that candidate only, whatever order the workers run in."""
    from hyperheurist.tools import tool_path

    script = tmp / "yosys"
    script.write_text(f"""#!/bin/sh
case "$(pwd)" in *{marker}*) kill -SEGV $$ ;; esac
exec {tool_path("yosys")} "$@"
""")
    script.chmod(0o755)
    return script


def seed_digest(design: Path, name: str) -> str:
    from hyperheurist.candidate import Candidate

    return Candidate.from_paths([design.parent / "seeds" / name], "traffic_fsm").short


# The resume paths only this module takes, at the fewest evaluations: an RTL move whose children are gated
# (cocotb included) and proven against their parent (egraph_rewrite, in the annealing and the finish), the tunable
# ok_2_countdown declares (a parameter override, gated too) and the FSM-encoding knob (offered only where the
# state's synthesis log, replayed from the journal on resume, shows an FSM auto did not already encode that way).
# Every move on tests/data/flow (recipe_abc_script's every value in its finish: no FSM, no tunable there) is killed
# and resumed in test_flow.py. FEW_MOVES (these and five more) gave 41 Phase-2 evaluations a run, these 12.
MOVES = ("egraph_rewrite", "tunable_param", "recipe_fsm_encoding")


@pytest.fixture(scope="module")
def two_valid(tmp_path_factory) -> tuple[Path, dict]:
    """traffic_fsm with both valid seeds and ``MOVES``, and the fingerprint of its uninterrupted run: 2 iterations,
    33 journal lines (1 the start, 2-7 Phase 1's six verdicts, 8-15 the annealing, 16-32 the finish from the best
    state, each chain's best and each start, 33 the end), 12 evaluations after Phase 1."""
    root = tmp_path_factory.mktemp("twovalid")
    design = small_design(root, iterations=2, both_valid=True, moves=MOVES)
    return design, fingerprint(run_once(design, root / "ref", root / "ref-cache", "--jobs", "2"))


def assert_same(fp: dict, ref: dict, what: str) -> None:
    for part in PARTS:
        assert fp[part] == ref[part], f"{what}: differs from the uninterrupted run in its {part}"


def test_tool_fault_in_phase1_then_resume_equals_uninterrupted(two_valid, tmp_path: Path) -> None:
    """A tool fault hides the baseline seed in Phase 1: the run anneals from the other one; resume with the tool
    fixed re-evaluates it, and every Phase-2 step (all of them started from the wrong seed) is decided again: the
    journal and summary end equal to a run that never saw the fault. (A fault on the second start went through
    the same replay, up to the first fault, and the same re-decision; a tool fault in Phase 2: test_faults.)"""
    design, ref = two_valid
    seed = "ok_1_naive.v"
    fake = yosys_crashing_in(tmp_path, seed_digest(design, seed))
    run = run_once(design, tmp_path / "out", tmp_path / "cache", "--jobs", "2", env={"HH_YOSYS": str(fake)})
    faulty = json.loads((run / "summary.json").read_text())
    # one candidate's synthesis crashed, once: Phase 2 never proposes that RTL (it was not a start)
    assert faulty["infrastructure_faults"]["count"] == 1 and faulty["phase1"]["valid"] == 1
    res = resume(run, tmp_path / "cache")
    assert res.returncode == 0, res.stderr
    assert_same(fingerprint(run), ref, f"fault on {seed}, resumed")
    check_run_record(run)


def run_until_killed(args: list[str], out: Path, cache: Path, lines: int) -> Path:
    """``hh *args`` in a session of its own, SIGKILLed (the whole group) as soon as the poll sees ``lines`` lines in
    the journal under ``out`` (it must still be running then); nothing it started may outlive it. Its run folder."""
    proc = subprocess.Popen([*HH, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, env={**os.environ, "HH_CACHE_DIR": str(cache)})
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        js = list(out.glob("*/*/journal.jsonl"))
        if js and js[0].read_bytes().count(b"\n") >= lines:
            break
        time.sleep(0.005)
    assert proc.poll() is None, f"hh ended (exit {proc.returncode}) before journal line {lines}"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not left_behind(out), f"killed at journal line {lines}: a process hh started outlived it"
    (run,) = [p for p in out.glob("*/*") if p.is_dir()]
    return run


# One chain of two kills, each as soon as the poll sees the line: in Phase 1 (3 lines: two of its six verdicts
# journaled; Phase 1 journals them one after another once all six are judged, and the poll saw 3-7 lines in 13
# runs on 2 cores, 7 (all six, no Phase-2 record yet) once), then the resumed run in the annealing (12 lines: the
# first iteration (lines 8-11) and one evaluation of the second journaled; seen: 12-15, the second iteration's);
# the resume replays what was journaled and appends from there, as the uninterrupted run writes it; resuming that
# ends equal to the uninterrupted run. (Two separate kills, each on a fresh run, cost a third run.) Seeded random
# points on tests/data/flow: test_faults.py, a kill at a Phase-2 step held there: test_flow.py
def test_kill_in_phase1_resume_kill_in_phase2_resume_equals_uninterrupted(two_valid, tmp_path: Path) -> None:
    design, ref = two_valid
    out, cache = tmp_path / "out", tmp_path / "cache"
    flags = ("--quiet", "--no-report", "--jobs", "2")
    run = run_until_killed(["run", str(design), "--out", str(out), *flags], out, cache, 3)
    run_until_killed(["run", "--resume", str(run), *flags], out, cache, 12)
    res = resume(run, cache, "--jobs", "2")
    assert res.returncode == 0, res.stderr
    assert_same(fingerprint(run), ref, "killed at journal line 3, resumed, killed at line 12, resumed")
