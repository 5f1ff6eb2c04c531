"""What makes a sandboxed launch cheaper must not make it weaker (issue #14's cost target).

- bwrap is started with vfork (no preexec_fn); its start gate (``rlimits.StartGate``) sets the resource limits
  on the sandbox before the tool starts, the tool inherits none of the gate's descriptors, and a gate never
  opened (hh died first) starts no tool at all;
- bwrap runs in a session of its own (no ``--new-session`` of bwrap's): nothing in the sandbox has hh's session
  or a controlling terminal;
- the simulation stage's cocotb run uses the compile stage's Icarus image when it was compiled from the same text
  with cocotb's flags (one launch fewer), with the same verdicts; a design that declares its own time unit keeps
  the compile it had (a default timescale could change Icarus' verdict there).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from processes import ended, stat_fields, state

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.gates import GateReport
from hyperheurist.gating import run_gates
from hyperheurist.rlimits import GateError, StartGate, rlimits
from hyperheurist.runner import run_tool
from hyperheurist.sandbox import BASE_PATH, Sandbox, tool_env

DATA = Path(__file__).parent / "data" / "gates"
SHOW_LIMITS = ("import json, os, resource as r\n"
               "print(json.dumps({'limits': [r.getrlimit(x) for x in (r.RLIMIT_FSIZE, r.RLIMIT_AS, r.RLIMIT_CPU, "
               "r.RLIMIT_CORE)], 'fds': sorted(int(f) for f in os.listdir('/proc/self/fd'))}))")


def test_the_limits_reach_the_sandboxed_tool_and_the_gate_descriptors_do_not(tmp_path: Path) -> None:
    res = run_tool([sys.executable, "-c", SHOW_LIMITS], name="limits", log_dir=tmp_path, timeout_s=30, mem_mb=900,
                   cpu_s=40, max_file_bytes=5_000_000)
    assert res.ok, res.stderr
    got = json.loads(res.stdout)
    assert got["limits"] == [[5_000_000, 5_000_000], [900 << 20, 900 << 20], [40, 45], [0, 0]]
    assert got["fds"] == [0, 1, 2, 3]  # stdin, stdout, stderr and the listing itself: no gate pipe
    assert "prlimit --fsize=5000000:5000000 --as=943718400:943718400 --cpu=40:45" in \
        (tmp_path / "limits.sandbox").read_text()


def test_the_sandbox_has_a_session_of_its_own_and_no_terminal(tmp_path: Path) -> None:
    marker = f"hh-session-probe-{os.getpid()}"
    script = (f"import os, time\nopen('started', 'w').close()  # {marker}\n"  # waits until the test has looked
              "for _ in range(3000):\n    if os.path.exists('release'):\n        break\n    time.sleep(0.01)\n")
    done = threading.Thread(target=run_tool, args=([sys.executable, "-c", script],),
                            kwargs={"name": "session", "log_dir": tmp_path, "timeout_s": 30})
    done.start()
    try:
        pids: list[int] = []
        while done.is_alive() and not pids:
            pids = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _holds(p, marker)]
            time.sleep(0.05)
        assert pids, "the probe never ran: the test proves nothing"
        fields = stat_fields(pids[0])
        session, tty = int(fields[3]), int(fields[4])
        assert session != os.getsid(0) and tty == 0
    finally:
        (tmp_path / "release").touch()
        done.join()


def _holds(proc: Path, marker: str) -> bool:
    try:
        return marker in (proc / "cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False


def _gated(tmp_path: Path, gate: StartGate, command: list[str]) -> subprocess.Popen[bytes]:
    from hyperheurist.sandbox_user import hand_over, identity

    if (ids := identity()) is not None:  # as run_tool does: the stage folder is the tool's id's while it runs
        hand_over((tmp_path,), ids)
    argv = gate.command(Sandbox(writable=(tmp_path,)).wrap(command, tool_env(), tmp_path))
    return subprocess.Popen(argv, env={"PATH": BASE_PATH}, stdin=subprocess.DEVNULL, start_new_session=True,
                            pass_fds=gate.fds())


HH_DIES_AT_THE_GATE = """
import os, resource, signal, sys
from pathlib import Path
from hyperheurist.runner import run_tool
from hyperheurist.sandbox_probe import probe
stage, where = Path(sys.argv[1]), sys.argv[2]
if where == "tool":
    probe()  # its gate opens: hh dies at the tool's
def die(pid, *limit):  # hh killed after bwrap cloned the sandbox, before any limit was set
    os.kill(pid, signal.SIGSTOP)  # the sandbox cannot end on its own (as when bwrap's outer process dies before
    print(pid, flush=True)        # it released it: it then waits forever on an eventfd, which has no end-of-file)
    os._exit(0)
resource.prlimit = die
run_tool(["/usr/bin/touch", str(stage / "ran")], name="gate", log_dir=stage, timeout_s=30)
"""


@pytest.mark.parametrize("cgroup", ["cgroup", "no cgroup"])
@pytest.mark.parametrize("where", ["probe", "tool"])
def test_a_gate_never_opened_starts_no_tool_and_goes_with_hh(tmp_path: Path, where: str, cgroup: str) -> None:
    """hh killed at the gate of the sandbox probe or of a tool: the sandbox must not go on without limits, nor
    outlive hh. bwrap alone cannot promise the second: when its outer process dies (``--die-with-parent``) after
    it named the sandbox's first process and before it released it, that process waits forever, reparented to
    init (1 of 150 launches on a loaded machine, the probe's). hh's reaper ends it: every sandbox's group is
    named to it before its gate opens. Here the sandbox is stopped, so only the reaper can end it."""
    env = {**os.environ, **({"HH_NO_CGROUP": "1"} if cgroup == "no cgroup" else {})}
    hh = subprocess.run([sys.executable, "-c", HH_DIES_AT_THE_GATE, str(tmp_path), where], capture_output=True,
                        text=True, timeout=60, cwd=Path(__file__).parent.parent, env=env)
    pid1 = int(hh.stdout)  # the sandbox's first process (host pid)
    try:
        assert ended(pid1), "the sandbox outlived hh"
        assert not (tmp_path / "ran").exists()
    finally:
        if state(pid1) not in ("Z", "?"):
            os.kill(pid1, 9)  # the PID namespace goes with it


def test_an_opened_gate_starts_the_tool(tmp_path: Path) -> None:
    """The converse of the test above, so that it can fail: the same sandbox with its gate opened runs the tool."""
    gate = StartGate()
    proc = _gated(tmp_path, gate, ["/usr/bin/touch", str(tmp_path / "ran")])
    gate.open(rlimits(None, None, 1 << 20), time.monotonic() + 30)
    assert proc.wait(timeout=30) == 0 and (tmp_path / "ran").exists()


def test_limits_the_kernel_refuses_start_no_tool(tmp_path: Path) -> None:
    canary = tmp_path / "ran"
    gate = StartGate()
    proc = _gated(tmp_path, gate, ["/usr/bin/touch", str(canary)])
    try:
        with pytest.raises(GateError, match="resource limits"):
            gate.open([(resource.RLIMIT_NOFILE, (1 << 30, 1 << 30))], time.monotonic() + 30)  # above fs.nr_open
    finally:
        gate.close()
        os.killpg(proc.pid, 9)
        proc.wait()
    assert not canary.exists()


def _gates(tmp_path: Path, text: str, only: list[str] | None = None) -> GateReport:
    d = load_design(DATA / "counter" / "design.yaml", {"verification.differential.enabled": False})
    return run_gates(Candidate.from_text(text, top="counter", name="counter.v"), d, tmp_path / "cand", only=only)


@pytest.mark.tools
def test_cocotb_runs_the_compile_stage_image_with_the_same_verdicts(tmp_path: Path) -> None:
    good = (DATA / "counter" / "good.v").read_text()
    rep = _gates(tmp_path / "good", good)
    assert rep.passed, rep.to_dict()
    work = tmp_path / "good" / "cand"
    assert "-f cmds.f" in (work / "02-compile" / "COMMANDS").read_text()
    cocotb = (work / "04-simulation" / "cocotb" / "COMMANDS").read_text()
    assert "# cocotb-build: not run: sim.vvp is a copy of" in cocotb and "/iverilog " not in cocotb
    bad = (DATA / "counter" / "ref.v").read_text().replace("count + 8'd1", "count + 8'd2")
    f = _gates(tmp_path / "bad", bad).failed
    assert f is not None and f.gate == "simulation" and f.details["failed_check"] == "cocotb"
    assert "not run" in (tmp_path / "bad" / "cand" / "04-simulation" / "cocotb" / "COMMANDS").read_text()


@pytest.mark.tools
@pytest.mark.parametrize("declared, verdict", [("timeunit 1ns; timeprecision 1ps;", None),
                                               ("timeunit 1ps;", "timeprecision is missing or is too large")])
def test_a_design_declaring_its_time_unit_keeps_its_own_compile(tmp_path: Path, declared: str,
                                                                verdict: str | None) -> None:
    text = (DATA / "counter" / "good.v").read_text().replace(");\n", f");\n    {declared}\n", 1)
    rep = _gates(tmp_path, text, only=["compile", "simulation"])  # Yosys 0.23 reads no timeunit
    work = tmp_path / "cand"
    assert "-f cmds.f" not in (work / "02-compile" / "COMMANDS").read_text()
    if verdict is None:  # cocotb builds its own image, with its own default timescale
        assert rep.passed, rep.to_dict()
        assert "/iverilog -o sim.vvp" in next(work.glob("*-simulation/cocotb/COMMANDS")).read_text()
    else:  # under cocotb's default timescale Icarus would accept it: the compile stage's verdict is kept
        f = rep.failed
        assert f is not None and f.gate == "compile" and verdict in f.message
