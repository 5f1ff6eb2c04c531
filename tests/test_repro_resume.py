"""Resume equals the uninterrupted run (test_repro.py's set-up with fewer moves, a module of its own so that it can
run on one pytest-xdist worker while test_repro's runs take the other): one chain, a run SIGKILLed in Phase 1 with a
tool fault hiding a valid seed, its resume killed in Phase 2 (annealing from the wrong seed), and a resume with the
tool fixed, ends with the journal and summary of a run that never saw the fault or the kills."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from processes import left_behind
from runrecord import check_run_record, journal
from shared_runs import two_valid_run
from test_repro import HH, PARTS, fingerprint, resume, small_design

# the uninterrupted reference (the fixture) and the chain's three attempts: past pytest's 300 s on 2 loaded cores
# (the 05:12 baseline, when they were two tests)
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
    design = small_design(root, iterations=2, both_valid=True, moves=MOVES)  # the chain's own copy
    return design, fingerprint(two_valid_run(tmp_path_factory))  # shared with test_repro_ray


def assert_same(fp: dict, ref: dict, what: str) -> None:
    for part in PARTS:
        assert fp[part] == ref[part], f"{what}: differs from the uninterrupted run in its {part}"


def run_until_killed(args: list[str], out: Path, cache: Path, lines: int, env: dict[str, str] | None = None) -> Path:
    """``hh *args`` in a session of its own (``env`` overlaid on the environment), SIGKILLed (the whole group) as
    soon as the poll sees ``lines`` lines in the journal under ``out`` (it must still be running then); nothing it
    started may outlive it. Its run folder."""
    proc = subprocess.Popen([*HH, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, env={**os.environ, "HH_CACHE_DIR": str(cache), **(env or {})})
    deadline = time.monotonic() + 300
    seen = 0
    while time.monotonic() < deadline and proc.poll() is None:
        js = list(out.glob("*/*/journal.jsonl"))
        seen = js[0].read_bytes().count(b"\n") if js else 0
        if seen >= lines:
            break
        time.sleep(0.005)
    assert proc.poll() is None, f"hh ended (exit {proc.returncode}) before journal line {lines}"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not left_behind(out), f"killed at journal line {lines}: a process hh started outlived it"
    (run,) = [p for p in out.glob("*/*") if p.is_dir()]
    after = (run / "journal.jsonl").read_bytes().count(b"\n")
    print(f"killed for line {lines}: the poll saw {seen} lines, the journal had {after} after the kill")
    return run


# One chain, so that one whole run's work is saved: make test is CPU-bound on 2 cores and was over its budget; as two
# tests (a run with the fault, finished, then resumed; a fresh run killed twice, then resumed) the module took 74-82
# CPU s, as this chain 45-58 (3 and 6 runs on a loaded 2-core machine). (Each kill on a fresh run of its own cost a
# further run, hence the two kills in one chain from the start.) Each kill comes as soon as the poll sees the line:
# 1. a yosys that crashes on the baseline seed (ok_1_naive), --jobs 2, SIGKILLed at 3 journal lines (Phase 1: two of
#    its six verdicts journaled; Phase 1 journals them one after another once all six are judged; the poll saw 4-7
#    lines, 7 (all six, the fault's included, no Phase-2 record yet) in 2 of 7 runs of this chain);
# 2. resumed, the tool still crashing: the replay follows the journaled verdicts (a fault journaled already is cut
#    and evaluated again), the seed crashes again, journaled as a Phase-1 tool fault (a phase1 record, invalid, gate
#    "infrastructure"), and the run anneals from the other valid seed alone (the wrong start); SIGKILLed at 12 lines
#    (line 8 on: that annealing; the poll saw 12-15);
# 3. resumed with the real yosys: the journal is cut at its first tool fault (a fault says nothing about the
#    design), the seed is evaluated again, valid this time, and every Phase-2 step (all of them from the wrong
#    start) is decided again; what the killed attempts evaluated that the new steps ask for comes from the journal.
# It ends equal to the uninterrupted run (the journal's Phase-1 verdicts, evaluations, steps and sequence, and the
# summary's stable keys). A fault on the second start goes through the same replay, up to the first fault, and the
# same re-decision. Resuming a run that a tool fault ended (its end record and summary written), a tool fault in
# Phase 2, and seeded random kill points: test_faults.py; a kill at a Phase-2 step held there: test_flow.py.
def test_fault_and_kill_in_phase1_resume_kill_in_phase2_resume_equals_uninterrupted(two_valid, tmp_path: Path) -> None:
    design, ref = two_valid
    out, cache = tmp_path / "out", tmp_path / "cache"  # one cache for the three attempts, as on a user's machine
    flags = ("--quiet", "--no-report", "--jobs", "2")
    seed = "ok_1_naive.v"
    marker = seed_digest(design, seed)
    crashing = {"HH_YOSYS": str(yosys_crashing_in(tmp_path, marker))}
    run = run_until_killed(["run", str(design), "--out", str(out), *flags], out, cache, 3, env=crashing)
    run_until_killed(["run", "--resume", str(run), *flags], out, cache, 12, env=crashing)
    records = journal(run)  # the killed resume's: a torn last line is skipped
    phase1 = [r for r in records if r["type"] == "phase1"]
    faults = [r for r in phase1 if r["gate"] == "infrastructure"]
    # one candidate's synthesis crashed, the seed the fake yosys crashes on: Phase 2 never proposes that RTL
    assert [(r["label"], r["verdict"], r["digest"][:len(marker)]) for r in faults] == \
        [(Path(seed).stem, "invalid", marker)], faults
    assert "SIGSEGV" in faults[0]["message"], faults[0]["message"]
    valid = [r["key"] for r in phase1 if r["verdict"] == "valid"]
    assert len(valid) == 1, "with the baseline seed faulted, one valid seed is left"
    starts = {r["parent"] for r in records if r["type"] == "step" and r["chain"] is not None and r["iteration"] == 0}
    assert starts == set(valid), "the killed resume annealed from the one valid seed left (the wrong start)"
    res = resume(run, cache, "--jobs", "2")  # the real yosys
    assert res.returncode == 0, res.stderr
    assert_same(fingerprint(run), ref, f"fault on {seed}, killed at journal line 3, resumed with the fault, killed at "
                                       "line 12, resumed with the tool fixed")
    check_run_record(run)
