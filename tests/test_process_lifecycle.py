"""No process outlives hh: after a SIGKILL of hh at seeded random points (inside a sandbox launch, while a
simulator, an equivalence engine or a synthesis runs, with and without the worker pool) or a Ctrl-C, nothing it
started is left running: no process whose command line or working folder lies under the run or stage folders
(a bwrap waiting at its start gate, reparented to init, once was)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_inproc import hh_process
from processes import ended, left_behind, start, under, wait_for

ALU = Path(__file__).parent / "data" / "gates" / "alu"
FLOW = Path(__file__).parent / "data" / "flow" / "design.yaml"
pytestmark = pytest.mark.tools
TOOLS = ("iverilog", "ivl", "vvp", "perl", "verilator_bin", "yosys", "yosys-abc")  # what runs inside a sandbox

# Loaded into the killed hh only (Python imports ``sitecustomize`` from PYTHONPATH at start): the Nth sandbox
# launch (the first is the sandbox probe, whose folder is /) kills hh itself, before (``before``) or after
# (``after``) hh has opened the sandbox's start gate.
DIE_AT_LAUNCH = """
import os, signal
from hyperheurist import rlimits

_open, _n = rlimits.StartGate.open, [0]
_at, _when = int(os.environ["HH_TEST_DIE_AT"]), os.environ["HH_TEST_DIE_WHEN"]

def _open_and_die(self, *args, **kwargs):
    _n[0] += 1
    if _n[0] == _at and _when == "before":
        os.kill(os.getpid(), signal.SIGKILL)
    out = _open(self, *args, **kwargs)
    if _n[0] == _at:
        os.kill(os.getpid(), signal.SIGKILL)
    return out

rlimits.StartGate.open = _open_and_die
"""


# A cocotb test that says when it runs (a file in its folder), then waits to be killed: a Ctrl-C sent once the
# file is there lands while a sandboxed tool runs that cannot end by itself (the gate's timeout is far away).
STARTED = "hh-test-started"
HANGS = f"""
import time
from pathlib import Path
import cocotb


@cocotb.test()
async def waits_to_be_killed(dut):
    Path("{STARTED}").write_text("")
    time.sleep(3600)
"""


def hanging_gate(tmp_path: Path) -> list[str]:
    """``hh gate`` arguments for the ALU whose simulation runs ``HANGS``."""
    d = tmp_path / "hangs"
    d.mkdir()
    for name in ("design.yaml", "ref.v", "spec.md"):
        (d / name).write_bytes((ALU / name).read_bytes())
    (d / "test_alu.py").write_text(HANGS)
    return ["gate", str(d / "design.yaml"), str(ALU / "good.v"), "--set", "verification.timeout_s=120"]


def wait_started(root: Path, proc: subprocess.Popen[str]) -> bool:
    """Whether ``HANGS`` runs under ``root`` (False: hh ended first)."""
    while proc.poll() is None:
        if any(STARTED in files for _, _, files in os.walk(root)):
            return True
        time.sleep(0.02)
    return False


def ignores_sigint(pid: int) -> bool:
    mask = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines() if x.startswith("SigIgn:"))
    return bool(int(mask.split()[1], 16) & (1 << (signal.SIGINT - 1)))


def dying_env(tmp_path: Path, at: int, when: str) -> dict[str, str]:
    hook = tmp_path / "hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(DIE_AT_LAUNCH)
    path = os.pathsep.join(filter(None, [str(hook), os.environ.get("PYTHONPATH")]))
    return {"PYTHONPATH": path, "HH_TEST_DIE_AT": str(at), "HH_TEST_DIE_WHEN": when}


def finish(proc: subprocess.Popen[str]) -> None:
    """Kill what is left of hh's own process group (its pool workers) and reap it: only what hh started
    elsewhere (the tools, in sessions of their own) is then left to check."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.communicate(timeout=60)


@pytest.mark.parametrize("trial", range(4))
def test_gate_killed_inside_a_sandbox_launch_leaves_no_process(tmp_path: Path, trial: int) -> None:
    """hh dies (SIGKILL, what the OOM killer does) at a launch, with the sandbox started and waiting at its gate,
    or just after the gate let the tool start. The gate once held its own write end: the sandbox waited forever.
    The last trial has no pids cgroup (HH_NO_CGROUP, as on a cgroup v2 host): the reaper ends bwrap's group."""
    rng = random.Random(33_000 + trial)
    at, when = rng.randrange(2, 10), ("before", "before", "after", "before")[trial]
    work = tmp_path / "work"
    proc = start("gate", str(ALU / "design.yaml"), str(ALU / "good.v"), "--workdir", str(work),
                 env={**dying_env(tmp_path, at, when), **({"HH_NO_CGROUP": "1"} if trial == 3 else {})})
    proc.communicate(timeout=300)
    assert proc.returncode == -signal.SIGKILL, f"hh was not killed at launch {at} (exit {proc.returncode})"
    left = left_behind(work)
    assert not left, f"killed at launch {at} ({when} the gate opened), still running:\n" + "\n".join(left)


@pytest.mark.parametrize(("jobs", "tools"), [("1", ("vvp", "iverilog", "ivl")),
                                             ("2", ("yosys-abc", "yosys", "vvp", "verilator_bin"))])
def test_run_killed_while_a_tool_runs_leaves_no_process(tmp_path: Path, jobs: str, tools: tuple[str, ...]) -> None:
    """SIGKILL of hh's own process only (not its group) while a simulator, an equivalence engine or a synthesis
    runs, inline or in a pool worker: the tools and the workers go with it."""
    out = tmp_path / "runs"
    proc = start("run", str(FLOW), "--out", str(out), "--quiet", "--no-report", "--jobs", jobs,
                 "--set", "verification.equivalence.enabled=true")
    try:
        seen = wait_for(out, tools, alive=lambda: proc.poll() is None)
        assert seen is not None, "the run ended before one of the tools ran"
        os.kill(proc.pid, signal.SIGKILL)
        left = left_behind(out)
    finally:
        finish(proc)
    assert not left, f"hh killed while {seen} ran; still running:\n" + "\n".join(left)


@pytest.mark.parametrize("caller", ["default", "ignores SIGINT"])
def test_gate_ctrl_c_exits_130_and_leaves_no_process(tmp_path: Path, caller: str) -> None:
    """Ctrl-C (SIGINT to the foreground group) while a sandboxed tool runs: exit 130, one line, nothing left; also
    when the tests themselves run with SIGINT ignored (``make check &`` from a script), as two loaded full-suite
    runs did: hh inherited the ignored SIGINT and gave its gate's verdict, exit 0."""
    work = tmp_path / "work"
    old = signal.signal(signal.SIGINT, signal.SIG_IGN) if caller != "default" else None
    try:
        proc = start(*hanging_gate(tmp_path), "--workdir", str(work))
    finally:
        if old is not None:
            signal.signal(signal.SIGINT, old)
    try:
        assert not ignores_sigint(proc.pid), "hh was started with SIGINT ignored: no Ctrl-C can reach it"
        assert wait_started(work, proc), "the gate ended before its simulation ran"
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            finish(proc)
    assert proc.returncode == 130, f"exit {proc.returncode}\n{out[-2000:]}\n{err[-2000:]}"
    assert "Traceback" not in err and err.strip().splitlines() == ["hh: interrupted"], err
    assert "PASS" not in out and "FAIL" not in out, out  # no verdict from an interrupted gate
    left = left_behind(work)
    assert not left, "after Ctrl-C, still running:\n" + "\n".join(left)


STARTS_AND_DIES = """
import os, signal, subprocess
from hyperheurist.rlimits import ProcessCap
proc = ProcessCap(16).start(lambda: subprocess.Popen(["sleep", "300"], start_new_session=True))
print(proc.pid, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_what_hh_started_in_its_cgroup_goes_when_hh_is_killed(tmp_path: Path) -> None:
    """A process hh started where it starts sandboxes, in a session of its own and with no parent-death signal
    (as a sandbox's first process is while bwrap's outer process has not yet released it), is killed by hh's
    reaper when hh dies: bwrap's own --die-with-parent cannot reach it."""
    from hyperheurist.rlimits import pids_base

    if pids_base() is None:
        pytest.skip("no writable pids cgroup here: no reaper")
    res = subprocess.run([sys.executable, "-c", STARTS_AND_DIES], capture_output=True, text=True, timeout=60)
    pid = int(res.stdout)
    alive = not ended(pid)
    if alive:
        os.kill(pid, signal.SIGKILL)
    assert not alive, "a process hh started outlived it"


def test_gate_leaves_no_temp_folder_when_killed_or_interrupted(tmp_path: Path) -> None:
    """``hh gate --workdir`` killed (SIGKILL) leaves no temporary folder (one was made and left empty each time);
    without ``--workdir`` a SIGKILL leaves the killed gate's folder, which the next ``hh gate`` removes, and a
    Ctrl-C (exit 130) leaves none."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    work, env = tmp_path / "work", {**dying_env(tmp_path, 3, "after"), "TMPDIR": str(tmp)}
    gate = ["gate", str(ALU / "design.yaml"), str(ALU / "good.v")]
    proc = start(*gate, "--workdir", str(work), env=env)
    proc.communicate(timeout=300)
    assert proc.returncode == -signal.SIGKILL
    assert not list(tmp.glob("hh-gate-*")), "a killed hh gate --workdir left a temporary folder"
    proc = start(*gate, env=env)
    proc.communicate(timeout=300)
    assert proc.returncode == -signal.SIGKILL
    assert left_behind(tmp) == []
    stale = list(tmp.glob("hh-gate-*"))
    assert len(stale) == 1 and stale[0].name.startswith("hh-gate-"), stale
    proc = start(*hanging_gate(tmp_path), env={"TMPDIR": str(tmp)})
    try:
        assert wait_started(tmp, proc), "the gate ended before its simulation ran"
        assert not stale[0].exists(), "the next hh gate did not remove a killed one's temporary folder"
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            finish(proc)
    assert proc.returncode == 130, err
    assert not list(tmp.glob("hh-gate-*")), "an interrupted hh gate left its temporary folder"


RUNS_A_TOOL_WITH_CHILDREN = """
import sys, threading
from pathlib import Path
from hyperheurist.runner import run_tool
threading.Thread(target=run_tool, args=(["/bin/sh", "-c", "sleep 0.5; sleep 300 & sleep 300 & wait"],), daemon=True,
                 kwargs={"name": "t", "log_dir": Path(sys.argv[1]), "timeout_s": 600, "sandbox": sys.argv[2],
                         "resolve": False}).start()
threading.Event().wait()
"""


@pytest.mark.parametrize(("sandbox", "cgroup"), [("off", True), ("off", False), ("required", False)])
def test_a_tools_children_go_when_hh_is_killed(tmp_path: Path, sandbox: str, cgroup: bool) -> None:
    """SIGKILL of hh while a tool runs that started children of its own (``sleep &``): they go too, with the
    sandbox off (the tool itself dies by its parent-death signal, which its children do not inherit: hh's reaper
    kills the tool's process group) and without a pids cgroup (forced by HH_NO_CGROUP, as on a cgroup v2 host:
    the reaper ends process groups only)."""
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, **({} if cgroup else {"HH_NO_CGROUP": "1"})}
    proc = subprocess.Popen([sys.executable, "-c", RUNS_A_TOOL_WITH_CHILDREN, str(work), sandbox], env=env,
                            start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while sum(": sleep 300" in p for p in under(work)) < 2 and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()[1]
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        left = left_behind(work)
    finally:
        finish(proc)
        for line in under(work):
            os.kill(int(line.split()[0]), signal.SIGKILL)
    assert not left, f"hh killed (sandbox {sandbox}, cgroup {cgroup}); still running:\n" + "\n".join(left)


def test_doctor_says_when_there_is_no_pids_cgroup() -> None:
    """Without a pids cgroup (forced as on a cgroup v2 host) the sandbox line of ``hh doctor`` says what still
    ends a killed hh's tools, and no cgroup is made."""
    res = hh_process("doctor", env={"HH_NO_CGROUP": "1"}, timeout=300)  # a process: the probe is cached per process
    line = next(x for x in res.stdout.splitlines() if x.startswith("sandbox"))
    assert "no pids cgroup" in line and "process groups" in line, line
    assert "pids cgroup /" not in res.stdout
