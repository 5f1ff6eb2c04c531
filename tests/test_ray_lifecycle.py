"""No process of a run's private Ray instance outlives hh (issue 33): after a SIGKILL of hh while the instance
starts or while a Ray worker runs a tool, or a Ctrl-C (exit 130), nothing holding the instance's session folder
(Ray's agents and workers rename their command line but keep their logs there open) or the run's folders is
left running, and the instance's folder is gone. Ray's own agents once lingered ~2 minutes after a killed hh."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from processes import children, left_behind, wait_for
from test_process_lifecycle import FLOW, TOOLS, finish, start

pytest.importorskip("ray")
pytestmark = [pytest.mark.tools, pytest.mark.slow]


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


def ray_run(tmp_path: Path) -> tuple[Path, list[str]]:
    out = tmp_path / "runs"
    return out, ["run", str(FLOW), "--out", str(out), "--quiet", "--no-report", "--executor", "ray", "--jobs", "2"]


@pytest.mark.parametrize("point", ["starting", "evaluating"])
def test_ray_run_killed_leaves_no_ray_process(tmp_path: Path, point: str) -> None:
    """SIGKILL of hh's own process while its Ray instance starts (the raylet is up) or while a Ray worker runs a
    tool: the instance's processes (GCS server, raylet, agents, workers), the tools and the folder go."""
    out, argv = ray_run(tmp_path)
    proc = start(*argv)
    try:
        session = session_of(proc.pid)
        if point == "starting":
            seen = wait_for(session, ("raylet",), alive=lambda: proc.poll() is None)
        else:
            seen = wait_for(out, TOOLS, alive=lambda: proc.poll() is None)
        assert seen is not None, f"the run ended before {point}"
        os.kill(proc.pid, signal.SIGKILL)
        left = left_behind(session, grace_s=60, fds=True) + left_behind(out)
    finally:
        finish(proc)
    assert not left, f"hh killed ({point}: {seen}); still running:\n" + "\n".join(left)
    assert gone(session), f"the Ray instance's folder {session} is left"


def test_ray_run_ctrl_c_exits_130_and_leaves_no_ray_process(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to hh's foreground group) while a Ray worker runs a tool: exit 130, nothing left."""
    out, argv = ray_run(tmp_path)
    proc = start(*argv)
    try:
        session = session_of(proc.pid)
        seen = wait_for(out, TOOLS, alive=lambda: proc.poll() is None)
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
