"""Whether and how the tool sandbox runs on this machine: one sandboxed launch per process, as ``run_tool``
launches a tool, so a machine where bubblewrap cannot run is told why (exit 3) and how to fix it before any
candidate is judged; what a command prints when the sandbox is off, and what the manifest records."""

from __future__ import annotations

import functools
import subprocess
import time
from pathlib import Path

from .rlimits import NO_CGROUP, ProcessCap, StartGate, kill_group, pids_base, rlimits, track_group, untrack_group
from .sandbox import (
    BASE_PATH,
    ETC,
    ETC_FILES,
    INSTALL_HINT,
    Sandbox,
    SandboxUnavailable,
    bwrap_path,
    check_mode,
    tool_env,
)
from .sandbox_user import identity

PROBE_PROCS = 16  # the probe's sandbox: bwrap, its first process, setpriv and one shell


@functools.lru_cache(maxsize=1)
def probe() -> str:
    """How the sandbox runs here (one line), or SandboxUnavailable with the reason and the fix."""
    exe = bwrap_path()
    argv = Sandbox(writable=()).wrap(["/bin/sh", "-c", "test ! -e /proc/1/environ || test $$ -lt 10"], tool_env(),
                                     Path("/"))
    gate = StartGate()  # as run_tool starts every tool: the limits set through the start gate, the sandbox under
    cap = ProcessCap(PROBE_PROCS)  # the process cap and named to the reaper before the gate opens (bwrap alone
    proc = None  # leaves the sandbox waiting forever when hh dies between its info and its release of the sandbox)
    try:
        proc = cap.start(lambda: subprocess.Popen(
            gate.command(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
            env={"PATH": BASE_PATH}, pass_fds=gate.fds(), start_new_session=True))
        track_group(proc.pid)
        gate.open(rlimits(None, None, 1 << 30), time.monotonic() + 20)
        out, err = proc.communicate(timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxUnavailable(f"bubblewrap ({exe}) could not start: {exc}; {INSTALL_HINT}") from None
    finally:
        gate.close()
        if proc is not None:
            _end_group(proc)
    if proc.returncode != 0:
        why = (err or out).strip().splitlines()
        raise SandboxUnavailable(f"bubblewrap ({exe}) cannot create the sandbox here: "
                                 f"{why[-1] if why else f'exit {proc.returncode}'}; {INSTALL_HINT}")
    version = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=20,
                             stdin=subprocess.DEVNULL).stdout.strip()
    who = f"as root, tools as {':'.join(map(str, ids))} (uid:gid)" if (ids := identity()) else "unprivileged"
    return (f"{version or 'bubblewrap'} at {exe}, {who}: no network, own PID namespace, read-only system, "
            f"/etc a copy of {len(ETC_FILES)} entries in {ETC.folder().parent}; " + (
                f"process cap and reaper in the pids cgroup {pids_base()}" if pids_base() else NO_CGROUP))


def _end_group(proc: subprocess.Popen[str]) -> None:
    """The probe's sandbox and whatever it left in its group ended, then no longer named to the reaper."""
    kill_group(proc.pid)
    proc.wait()
    untrack_group(proc.pid)


OFF_WARNING = ("hh: warning: limits.sandbox is off: tools run unsandboxed, with network access, a view of "
               "every process and write access wherever hh can write (only the safety gate's filter stands "
               "between the candidate RTL and this machine)")


def enforce(mode: str) -> str | None:
    """At a command's start: SandboxUnavailable (exit 3, with the fix) when the sandbox is required but
    cannot run here, before any candidate is judged; the warning to print when it is off."""
    check_mode(mode)
    if mode == "off":
        return OFF_WARNING
    probe()
    return None


def describe(mode: str) -> dict[str, str]:
    """For the manifest: the mode and, when on, how the sandbox runs here."""
    if mode == "off":
        return {"mode": "off", "how": "unsandboxed (explicit choice)"}
    try:
        return {"mode": mode, "how": probe()}
    except SandboxUnavailable as exc:
        return {"mode": mode, "how": f"unavailable: {exc}"}
