"""A tool's resource limits, how they reach it before it starts, and how it is bound to hh's life.

Unsandboxed, a ``preexec_fn`` sets them in the forked child (and PDEATHSIG, so a killed hh leaves no tool
behind). Sandboxed, no ``preexec_fn``: it makes Python fork hh in full instead of vfork-ing it (measured on a
loaded 2-core machine: 3.0 ms against 0.8 ms p10 for ``/usr/bin/true``; importing ctypes in each child, as this
hook once did, cost 5 ms more). Instead bwrap's start gate (``StartGate``) holds the sandbox's first process
before it starts the tool until hh has set the limits on it (``prlimit``); the tool inherits them from that
process as it would from a preexec hook. bwrap's own ``--die-with-parent`` binds the running sandbox to hh.
Where a pids cgroup can be made, sandboxes are started in one per hh process, which caps their process count
(``ProcessCap``) and lets a reaper kill whatever of them is left when hh dies (``_Launcher``); with or without one,
that reaper (``_Reaper``) also ends the process group of every tool still running then (docs/trust-model.md).
"""

from __future__ import annotations

import ctypes
import functools
import itertools
import json
import os
import queue
import resource
import select
import signal
import struct
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import TypeVar

Limit = tuple[int, tuple[int, int]]  # (resource.RLIMIT_*, (soft, hard))
PR_SET_PDEATHSIG = 1
T = TypeVar("T")


def rlimits(mem_mb: int | None, cpu_s: int | None, file_bytes: int) -> tuple[Limit, ...]:
    """What a tool may use: file size always, address space and CPU time when given, no core dumps."""
    out: list[Limit] = [(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))]
    if mem_mb:
        b = mem_mb * 1024 * 1024
        out.append((resource.RLIMIT_AS, (b, b)))
    if cpu_s:
        out.append((resource.RLIMIT_CPU, (cpu_s, cpu_s + 5)))
    out.append((resource.RLIMIT_CORE, (0, 0)))
    return tuple(out)


@functools.lru_cache(maxsize=1)
def _prctl() -> Callable[..., int] | None:
    """libc's prctl, loaded in hh (loading ctypes in each forked child cost ~5 ms per tool)."""
    try:
        fn: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
        return fn
    except (OSError, AttributeError):
        return None


def preexec(limits: Sequence[Limit]) -> Callable[[], None]:
    """The unsandboxed child's hook: SIGKILL when hh dies (Linux PDEATHSIG), then the limits. (Its children do not
    inherit the signal: this process's reaper, started here before the launch, ends the tool's process group.)"""
    prctl, parent = _prctl(), os.getpid()
    _reaper()

    def apply() -> None:
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent:  # hh died before the line above: no death signal will come
                os.kill(os.getpid(), signal.SIGKILL)
        for which, value in limits:
            resource.setrlimit(which, value)

    return apply


def die_with_parent() -> None:
    """Bind this process (a pool worker) to its parent's life: SIGKILL when it dies, at once if it already has.
    A forked worker holds both ends of its task queue, so it never sees end-of-file when hh dies."""
    prctl, parent = _prctl(), os.getppid()
    if prctl is not None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it died between the two calls
        os.kill(os.getpid(), signal.SIGKILL)


class GateError(OSError):
    """The limits could not be set on the sandbox (the tool was not started)."""


# one classic-BPF instruction, ``return SECCOMP_RET_ALLOW``: a filter that lets every system call through
ALLOW_ALL = struct.pack("=HBBI", 0x06, 0, 0, 0x7FFF0000)


class StartGate:
    """bwrap's start gate for one sandbox. ``--info-fd``: bwrap's outer process writes the host pid of the
    sandbox's first process once it has cloned it (and has set its own PDEATHSIG); ``--seccomp``: that process
    reads a system-call filter from a pipe to its end before it starts the tool. hh holds the only write end
    and writes an allow-everything filter once the limits are set. When hh dies first (SIGKILL, the OOM killer,
    a crash), the kernel closes that end: the sandbox reads an empty filter, which the kernel refuses, and
    bwrap exits without starting the tool. So a gate never lets a tool run without its limits. It does not
    alone bind the sandbox to hh: when bwrap's outer process dies with hh after it wrote the info and before it
    released the sandbox's first process (an eventfd write), that process waits forever, before the gate; the
    reaper ends it, so every sandbox's group is named to the reaper before its gate opens. (The gate was once
    ``--block-fd`` with bwrap holding the write end itself, as ``--sync-fd``: bwrap never saw end-of-file and
    a sandbox whose hh died waited forever, reparented to init; ``--block-fd`` alone would start the tool
    unlimited on end-of-file.) The tool inherits neither descriptor."""

    def __init__(self) -> None:
        self._info_r, self._info_w = os.pipe()
        self._gate_r, self._gate_w = os.pipe()
        self._open = [self._info_r, self._info_w, self._gate_r, self._gate_w]

    def args(self) -> list[str]:
        return ["--info-fd", str(self._info_w), "--seccomp", str(self._gate_r)]

    def command(self, bwrap_argv: Sequence[str]) -> list[str]:
        """A bwrap command line (``sandbox.Sandbox.wrap``) with this gate's options."""
        return [bwrap_argv[0], *self.args(), *bwrap_argv[1:]]

    def fds(self) -> tuple[int, ...]:
        """What the bwrap process must inherit (``pass_fds``): the info's write end, the gate's read end."""
        return self._info_w, self._gate_r

    def open(self, limits: Sequence[Limit], deadline: float) -> None:
        """Once bwrap runs: set ``limits`` on the sandbox's first process, then let it start the tool. Returns
        without doing either when bwrap ends before it cloned (its own error then is in its stderr) or
        ``deadline`` passes (the caller kills it). GateError when the kernel refuses the limits."""
        self._close(self._info_w)  # bwrap's ends: hh holds the info's read end and the gate's write end
        self._close(self._gate_r)
        info = b""
        while True:
            ready, _, _ = select.select([self._info_r], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                return
            chunk = os.read(self._info_r, 4096)
            if not chunk:
                break
            info += chunk
        try:
            pid = int(json.loads(info)["child-pid"])
        except (ValueError, KeyError, TypeError):
            return  # no sandbox was made
        try:
            for which, value in limits:
                resource.prlimit(pid, which, value)
        except ProcessLookupError:
            return  # its setup failed: bwrap reports why
        except OSError as exc:
            raise GateError(exc.errno, f"cannot set the tool's resource limits in the sandbox (prlimit: "
                                       f"{exc.strerror})") from None
        try:
            os.write(self._gate_w, ALLOW_ALL)  # 8 bytes: one write into an empty pipe, never partial
        except BrokenPipeError:
            return  # the sandbox is gone already: bwrap reports why
        self.close()  # end-of-file after the filter: the tool starts

    def close(self) -> None:
        for fd in list(self._open):
            self._close(fd)

    def _close(self, fd: int) -> None:
        if fd in self._open:
            self._open.remove(fd)
            os.close(fd)


# ---- the process count and the reaper: a pids cgroup per hh process ---------------------------------------
_seq = itertools.count(1)


def _pidns() -> int:
    """This PID namespace's id: two containers sharing a cgroup folder name their pids alike."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


@functools.lru_cache(maxsize=1)
def pids_base() -> Path | None:
    """The folder hh makes its pids cgroups in (this process's own cgroup in the cgroup v1 pids hierarchy: v1 lets
    one thread join a cgroup), or None. The ``hh-<PID namespace>-<pid>-<n>`` cgroups of an hh that died without
    its reaper are emptied (SIGKILL) and removed here."""
    if os.environ.get("HH_NO_CGROUP"):  # as on a cgroup v2 host: the reaper ends process groups only (tests)
        return None
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, rel = line.split(":", 2)
        if "pids" not in controllers.split(","):
            continue
        base = Path("/sys/fs/cgroup/pids") / rel.lstrip("/")
        if base.is_dir() and os.access(base, os.W_OK):
            for old in base.glob(f"hh-{_pidns()}-*-*"):  # pids of this PID namespace only: /proc can tell
                owner = old.name.split("-")[2]
                if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
                    try:  # its reaper did not run (killed too): what is left there is a dead hh's
                        for pid in (old / "cgroup.procs").read_text().split():
                            os.kill(int(pid), signal.SIGKILL)
                        old.rmdir()
                    except (OSError, ValueError):
                        pass
            return base
    return None


REAPER = """g=" "
while read -r op p; do
  case $op in
    +) g="$g$p " ;;
    -) case $g in *" $p "*) g="${g%%" $p "*} ${g#*" $p "}" ;; esac ;;
  esac
done
for p in $g; do kill -9 "-$p" 2>/dev/null; done
[ -n "$1" ] || exit 0
for _ in 1 2 3 4 5 6 7 8 9 10; do
  p=$(cat "$1/cgroup.procs" 2>/dev/null); [ -z "$p" ] || [ "$p" = "$2" ] && break
  for x in $p; do [ "$x" = "$2" ] || kill -9 "$x" 2>/dev/null; done; sleep 0.05
done
rmdir "$1" 2>/dev/null
"""  # $1: the launcher's cgroup (or ""), $2: hh's pid; stdin: a pipe whose write end only hh's process holds, on
# which hh names each tool's process group as it starts it ("+ PGID") and once it has ended it ("- PGID")


NO_CGROUP = ("no pids cgroup (a cgroup v2 host, or HH_NO_CGROUP set): no cgroup process cap; a killed hh's tools "
             "are still ended, by hh's reaper through their process groups and by bwrap's --die-with-parent "
             "(docs/trust-model.md)")


class _Reaper:
    """What ends a dead hh's tools (``REAPER``, a shell started once per process, in a session of its own): on
    end-of-file on its stdin (hh's process died, however it died) it kills the process groups of the tools still
    running, then (cgroup v1) every process left in ``cgroup``. A tool runs in a session of its own, so its
    group holds what it started, unless one of those started a session of its own too; an unsandboxed tool
    itself also dies by its parent-death signal, a sandbox by bwrap's ``--die-with-parent``."""

    def __init__(self, cgroup: Path | None) -> None:
        self.proc = subprocess.Popen(["/bin/sh", "-c", REAPER, "hh-reaper", str(cgroup or ""), str(os.getpid())],
                                     cwd="/", stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True, env={"PATH": "/usr/bin:/bin"})
        assert self.proc.stdin is not None
        self.fd = self.proc.stdin.fileno()
        os.set_blocking(self.fd, False)  # a stopped reaper never blocks hh: a lost line costs that group's cover

    def say(self, line: str) -> None:
        try:
            os.write(self.fd, line.encode())  # one short line: a single atomic write, whatever thread calls
        except OSError:
            pass


_reapers: dict[int, _Reaper | None] = {}


def _reaper() -> _Reaper | None:
    """This process's reaper (its launcher's where there is one), started on first use."""
    _launcher()
    with _launch_lock:
        if os.getpid() not in _reapers:
            try:
                _reapers[os.getpid()] = _Reaper(None)
            except OSError:
                _reapers[os.getpid()] = None
        return _reapers[os.getpid()]


def track_group(pgid: int) -> None:
    """A tool's process group (hh started it in a session of its own): killed if hh dies while it runs."""
    reaper = _reaper()
    if reaper is not None:
        reaper.say(f"+ {pgid}\n")


def kill_group(pgid: int) -> None:
    """SIGKILL to a tool's process group (hh started it in a session of its own); gone already is fine."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def untrack_group(pgid: int) -> None:
    """The tool's group has been ended by hh itself (``kill_group``)."""
    reaper = _reapers.get(os.getpid())
    if reaper is not None:
        reaper.say(f"- {pgid}\n")


class _Launcher:
    """A thread of this process that lives in a pids cgroup of its own and starts the sandboxes: a child is born in
    the cgroup of the thread that forks it, so no sandbox has to be moved into one (a move costs an RCU grace
    period: 12.5 ms median per launch, measured on this 2-core machine, against ~10 ms for the launch itself; the
    thread is moved once per process). hh starts its tools from one thread, so one sandbox at a time is in it.

    The cgroup also ends what hh's death leaves: a reaper (``REAPER``, a shell started once per process, in a
    session of its own) waits for end-of-file on a pipe only this process holds; when it dies, it kills every
    process left in the cgroup and removes it. bwrap cannot do that alone: its outer process, killed with hh
    (``--die-with-parent``) before it released the sandbox's first process, leaves that one waiting for it
    forever, reparented to init, before the start gate is reached."""

    def __init__(self, base: Path) -> None:
        self.owner, self.path = os.getpid(), base / f"hh-{_pidns()}-{os.getpid()}-{next(_seq)}"
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()  # each settles its own Future
        ready, failed = threading.Event(), list[OSError]()
        threading.Thread(target=self._serve, args=(ready, failed), name="hh-launcher", daemon=True).start()
        ready.wait()
        if failed:
            raise failed[0]
        self.reaper = _reapers[self.owner] = _Reaper(self.path)

    def _serve(self, ready: threading.Event, failed: list[OSError]) -> None:
        try:
            self.path.mkdir()
            (self.path / "tasks").write_text(str(threading.get_native_id()))
        except OSError as exc:
            failed.append(exc)
            return
        finally:
            ready.set()
        while True:
            self._jobs.get()()

    def call(self, fn: Callable[[], T], limit: int) -> T:
        (self.path / "pids.max").write_text(str(limit + 1))  # +1: this thread
        out: Future[T] = Future()

        def job() -> None:  # run on the launcher thread
            try:
                out.set_result(fn())
            except BaseException as exc:  # handed to the caller's thread
                out.set_exception(exc)

        self._jobs.put(job)
        return out.result()

    def refused(self) -> int:
        """How many forks the cap has refused in this cgroup so far."""
        try:
            events = (self.path / "pids.events").read_text().split()
            return int(events[1]) if len(events) >= 2 and events[0] == "max" else 0
        except (OSError, ValueError):
            return 0


_launchers: dict[int, _Launcher | None] = {}
_launch_lock = threading.Lock()


def _launcher() -> _Launcher | None:
    """This process's launcher (a forked pool worker makes its own), or None where no pids cgroup can be made."""
    with _launch_lock:
        if os.getpid() not in _launchers:
            base = pids_base()
            try:
                _launchers[os.getpid()] = _Launcher(base) if base is not None else None
            except OSError:
                _launchers[os.getpid()] = None
        return _launchers[os.getpid()]


class ProcessCap:
    """At most ``limit`` tasks (processes and threads) at once in one sandbox: it is started from this process's
    launcher thread (``_Launcher``), in a pids cgroup whose cap is set before each launch. RLIMIT_NPROC cannot do
    it: the kernel exempts uid 0, and hh often runs as root. Where no pids cgroup can be made (``pids_base()`` is
    None) there is no cap; ``sandbox_probe.probe`` says so."""

    def __init__(self, limit: int) -> None:
        self.limit, self.launcher, self.before = limit, _launcher(), 0
        _reaper()  # before the launch: the sandbox's process group is named to it as soon as it runs

    def start(self, popen: Callable[[], T]) -> T:
        """``popen()`` run where its child is born under the cap."""
        if self.launcher is None:
            return popen()
        self.before = self.launcher.refused()
        return self.launcher.call(popen, self.limit)

    def hit(self) -> bool:
        """A fork or clone in this sandbox was refused at the cap."""
        return self.launcher is not None and self.launcher.refused() > self.before
