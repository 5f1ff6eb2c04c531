"""No process of a run's private Ray instance outlives hh (issue 33): after a SIGKILL of hh while the instance
starts or while a Ray worker runs a tool, or a Ctrl-C (exit 130), nothing holding the instance's session folder
(Ray's agents and workers rename their command line but keep their logs there open) or the run's folders is
left running, and the instance's folder is gone. Ray's own agents once lingered ~2 minutes after a killed hh."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from importlib.util import find_spec
from pathlib import Path

import pytest
from processes import children, left_behind, under
from test_process_lifecycle import FLOW, TOOLS, finish, start

ray_run_test = pytest.mark.skipif(find_spec("ray") is None, reason="Ray is an optional extra")


def session_of(proc_pid: int, timeout_s: float = 180.0) -> Path:
    """The session folder of the Ray instance hh started (its GCS server, a child of hh, names it)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for _, name, argv in children(proc_pid):
            if name == "gcs_server":
                for arg in argv:
                    if arg.startswith("--session-dir="):
                        return Path(arg.partition("=")[2])
        time.sleep(0.02)
    raise AssertionError("hh started no Ray instance")


def gone(path: Path, timeout_s: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    return not path.exists()


def first_of(root: Path, names: tuple[str, ...], proc: subprocess.Popen[str], timeout_s: float = 120.0) -> str | None:
    """``processes.wait_for`` polling every 50 ms, not 5: a scan of /proc takes ~5 ms of CPU, so the 5 ms poll kept
    half a core busy through the seconds a Ray instance takes to start (on 2 cores, CPU taken from Ray's start).
    What is waited for lasts longer than the poll: the raylet runs until the kill, a tool (in its sandbox) ~0.1 s
    and more, and the run has many."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        for line in under(root):
            if line.split(":", 1)[0].split(" ", 2)[-1] in names:
                return line
        time.sleep(0.05)
    return None


def ray_run(tmp_path: Path) -> tuple[Path, list[str]]:
    out = tmp_path / "runs"
    return out, ["run", str(FLOW), "--out", str(out), "--quiet", "--no-report", "--executor", "ray", "--jobs", "2"]


@ray_run_test
@pytest.mark.tools
@pytest.mark.slow
@pytest.mark.parametrize("point", ["starting", "evaluating"])
def test_ray_run_killed_leaves_no_ray_process(tmp_path: Path, point: str) -> None:
    """SIGKILL of hh's own process while its Ray instance starts (the raylet is up) or while a Ray worker runs a
    tool: the instance's processes (GCS server, raylet, agents, workers), the tools and the folder go."""
    out, argv = ray_run(tmp_path)
    proc = start(*argv)
    try:
        session = session_of(proc.pid)
        if point == "starting":
            seen = first_of(session, ("raylet",), proc)
        else:
            seen = first_of(out, TOOLS, proc)
        assert seen is not None, f"the run ended before {point}"
        os.kill(proc.pid, signal.SIGKILL)
        left = left_behind(session, grace_s=60, fds=True) + left_behind(out)
    finally:
        finish(proc)
    assert not left, f"hh killed ({point}: {seen}); still running:\n" + "\n".join(left)
    assert gone(session), f"the Ray instance's folder {session} is left"


@ray_run_test
@pytest.mark.tools
@pytest.mark.slow
def test_ray_run_ctrl_c_exits_130_and_leaves_no_ray_process(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to hh's foreground group) while a Ray worker runs a tool: exit 130, nothing left."""
    out, argv = ray_run(tmp_path)
    proc = start(*argv)
    try:
        session = session_of(proc.pid)
        seen = first_of(out, TOOLS, proc)
        assert seen is not None, "the run ended before a tool ran"
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            finish(proc)
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err, err[-2000:]
    left = left_behind(session, grace_s=60, fds=True) + left_behind(out)
    assert not left, "after Ctrl-C, still running:\n" + "\n".join(left)
    assert gone(session), f"the Ray instance's folder {session} is left"


GUARDED_AND_KILLED = """
import os, signal, subprocess, sys
from hyperheurist.executors import RayGuard
guard = RayGuard()
(guard.folder / "logs").mkdir()
log = open(guard.folder / "logs" / "agent.out", "w")
agent = subprocess.Popen(["sleep", "300"], stdout=log, start_new_session=True)  # as Ray's agents: a log there
worker = subprocess.Popen(["sleep", "301"], cwd=guard.folder, start_new_session=True)
print(guard.folder, flush=True)
if sys.argv[1] == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
guard.close()
print("closed", flush=True)
"""


@pytest.mark.parametrize("how", ["kill", "close"])
def test_ray_guard_ends_what_holds_its_folder(tmp_path: Path, how: str) -> None:
    """The guardian of a private Ray instance (no Ray needed here): when hh closes it or dies by SIGKILL, every
    process holding its folder (a log file open in it, or working in it) is killed and the folder removed."""
    env = {**os.environ, "RAY_TMPDIR": "/tmp"}
    res = subprocess.run([sys.executable, "-c", GUARDED_AND_KILLED, how], capture_output=True, text=True,
                         timeout=120, env=env)
    folder = Path(res.stdout.splitlines()[0])
    assert res.returncode == (-signal.SIGKILL if how == "kill" else 0), res.stderr
    left = left_behind(folder, grace_s=30, fds=True)
    for line in left:
        os.kill(int(line.split()[0]), signal.SIGKILL)
    assert not left, "still running:\n" + "\n".join(left)
    assert gone(folder, 30), f"{folder} is left"


def test_ray_guard_folder_fits_ray_socket_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The instance's folder is where Ray would put its own (RAY_TMPDIR), unless Ray's socket paths under it
    would pass AF_UNIX's 107 bytes: then /tmp (Ray refused to start)."""
    from hyperheurist.executors import RayGuard

    for base, where in ((Path("/tmp"), Path("/tmp")), (tmp_path / ("x" * 40), Path("/tmp"))):
        base.mkdir(exist_ok=True)
        monkeypatch.setenv("RAY_TMPDIR", str(base))
        guard = RayGuard()
        try:
            assert guard.folder.parent == where
            session = f"session_2026-12-06_05-20-49_691553_{os.getpid()}/sockets/plasma_store"
            assert len(str(guard.folder / session).encode()) <= 107
        finally:
            guard.close()
        assert not guard.folder.exists()
