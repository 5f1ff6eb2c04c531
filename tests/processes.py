"""Which processes a run left behind: every process whose command line or working folder lies under a folder
(the run's, its stage folders'), read from /proc. Used after a kill to check that nothing hh started outlives it.
``start`` starts hh as a terminal's foreground job would run it, for the tests that signal it."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from cli_inproc import HH


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """``hh *args`` as a terminal's foreground job, in a session (process group) of its own so that a test can
    signal the whole group (``os.killpg``), stdin from /dev/null, ``env`` overlaid on the environment. SIGINT is at
    its default action: an ignored SIGINT is inherited across exec, and Python then keeps ignoring it; a test run
    started as a script's background job (``make check &``: POSIX shells ignore SIGINT there) once made hh ignore
    the tests' Ctrl-C and finish its gate (exit 0)."""
    return subprocess.Popen([*HH, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL, start_new_session=True, env={**os.environ, **(env or {})},
                            preexec_fn=_sigint_default)


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def _holds(pid: str, mark: str) -> bool:
    """The process has a file or folder under ``mark`` open (Ray's agents and workers rename their command line,
    but keep their log files open)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            name = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if name == mark or name.startswith(mark + "/"):
            return True
    return False


def under(root: Path, fds: bool = False) -> list[str]:
    """``pid ppid name: cmdline (cwd)`` of each live process (not a zombie, not this one) started in or for
    ``root``: its command line names a path in it, or its working folder is in it, or (``fds``) it holds a file
    in it open."""
    mark = str(Path(root).resolve())
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) == os.getpid():
            continue
        stat = _read(f"/proc/{pid}/stat").decode(errors="replace")
        if not stat or stat.rsplit(")", 1)[-1].split()[0] == "Z":
            continue
        argv = _read(f"/proc/{pid}/cmdline").decode(errors="replace").split("\0")
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            cwd = ""
        if cwd == mark or cwd.startswith(mark + "/") or any(mark in a for a in argv) or (fds and _holds(pid, mark)):
            ppid = stat.rsplit(")", 1)[-1].split()[1]
            name = stat[stat.find("(") + 1:stat.rfind(")")]
            out.append(f"{pid} ppid={ppid} {name}: {' '.join(argv)[:300]} (cwd {cwd})")
    return out


def left_behind(root: Path, grace_s: float = 20.0, fds: bool = False) -> list[str]:
    """What is still running for ``root`` once ``grace_s`` has passed (processes killed through a parent-death
    signal need a moment to go); empty as soon as nothing is."""
    deadline = time.monotonic() + grace_s
    while True:
        left = under(root, fds)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def wait_for(root: Path, names: tuple[str, ...], timeout_s: float = 120.0, alive=lambda: True) -> str | None:
    """The first process for ``root`` whose name is one of ``names``, once one runs (None: none before the timeout
    or before ``alive()`` turned false)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and alive():
        for line in under(root):
            if line.split(":", 1)[0].split(" ", 2)[-1] in names:
                return line
        time.sleep(0.005)
    return None


def stat_fields(pid: int) -> list[str]:
    """``/proc/<pid>/stat``'s fields from the state letter on (the process name may hold spaces)."""
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2:].split()


def state(pid: int) -> str:
    """The process's state letter, "?" once it is gone."""
    try:
        return stat_fields(pid)[0]
    except OSError:
        return "?"


def ended(pid: int, timeout_s: float = 20.0) -> bool:
    """Whether the process is gone or a zombie within ``timeout_s`` (polled)."""
    deadline = time.monotonic() + timeout_s
    while state(pid) not in ("Z", "?") and time.monotonic() < deadline:
        time.sleep(0.05)
    return state(pid) in ("Z", "?")


def children(pid: int) -> list[tuple[int, str, list[str]]]:
    """``(pid, name, argv)`` of each live child of ``pid``."""
    out = []
    for child in filter(str.isdigit, os.listdir("/proc")):
        stat = _read(f"/proc/{child}/stat").decode(errors="replace")
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and fields[1] == str(pid) and fields[0] != "Z":
            argv = _read(f"/proc/{child}/cmdline").decode(errors="replace").split("\0")
            out.append((int(child), stat[stat.find("(") + 1:stat.rfind(")")], argv))
    return out
