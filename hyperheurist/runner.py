"""The one way external tools are run.

argv lists only (never a shell), stdin closed, a mandatory timeout, the whole process group killed
on timeout or runaway output, stdout/stderr kept in log files, the command line appended to
``COMMANDS`` beside the logs (and to the run-level file when one is set), and by default inside the
sandbox (``sandbox.py``): no network, own PID namespace, an environment built from nothing, write
access to ``log_dir`` and ``cwd`` only. With ``sandbox="off"`` the environment is hh's own stripped
of secrets. Once the tool has ended, what it left in those folders that is not a file or folder (a link, a
FIFO) is removed, and hh's own logs there are read and written only as regular files (``safeio``).
"""

from __future__ import annotations

import os
import re
import resource
import select
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import safeio
from .errors import ToolError
from .rlimits import GateError, Limit, ProcessCap, StartGate, kill_group, preexec, rlimits, track_group, untrack_group
from .sandbox import BASE_PATH, Sandbox, check_mode
from .sandbox import tool_env as sandbox_env
from .sandbox_probe import probe
from .sandbox_user import grant, hand_over, identity, take_back
from .secrets import SECRET_ENV
from .tools import tool_env, tool_limits, tool_path

BWRAP_FAILED = re.compile(  # bwrap's own failure, or setpriv's (it execs the tool as root's stand-in)
    r"\A(bwrap: (execvp|Can't|Failed|Creating|No permission|setting up)|setpriv: failed to execute)")
DEFAULT_MEM_MB = 4096  # address-space cap when the caller gives none (limits.tool_mem_mb's default)
MEMORY_ERRORS = re.compile(
    r"std::bad_alloc|out of memory|MemoryError|Cannot allocate memory|memory exhausted|failed to allocate|"
    r"Memory allocation failed|cannot allocate", re.I)
FORK_REFUSED = re.compile(r"Resource temporarily unavailable|can(no|')t fork|fork failed", re.I)  # EAGAIN at NPROC
DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024  # bytes of stdout+stderr before the tool is stopped (polled)
DEFAULT_MAX_FILE = 1024 * 1024 * 1024  # hard cap on any one file a tool writes (RLIMIT_FSIZE)
READ_BACK_LIMIT = 8 * 1024 * 1024  # bytes of each stream kept in memory
DEFAULT_MAX_PROCS = 256  # processes and threads at once in one sandbox (a pids cgroup: rlimits.ProcessCap)
DEFAULT_MAX_DISK = 512 * 1024 * 1024  # bytes a tool's folders may hold (polled, and checked when it ends)

_run_commands_file: Path | None = None
_lock = threading.Lock()


def set_run_commands_file(path: Path | None) -> None:
    """Also append every command line to this run-level file (set per process)."""
    global _run_commands_file
    _run_commands_file = Path(path) if path else None


def safe_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The current environment without API keys or other secrets, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not SECRET_ENV.search(k)}
    env.setdefault("LC_ALL", "C")
    if extra:
        env.update(extra)
    return env


@dataclass
class ToolResult:
    name: str
    argv: list[str]
    cwd: str
    returncode: int
    wall_s: float
    timed_out: bool = False
    output_limited: bool = False
    memory_limited: bool = False  # died under the address-space cap (bad_alloc, MemoryError, ...)
    cpu_limited: bool = False  # killed by the CPU-time cap (SIGXCPU / SIGKILL at the hard limit)
    process_limited: bool = False  # a fork refused at the sandbox's process cap (then stopped)
    disk_limited: bool = False  # its folders grew past the disk cap (stopped)
    mem_mb: int | None = None
    sandbox: str = "required"
    stdout_path: Path | None = None
    stderr_path: Path | None = None
    stdout: str = ""
    stderr: str = ""

    @property
    def limited(self) -> bool:
        """Stopped by one of our own limits (wall time, output, memory, CPU): the input's fault, not the tool's."""
        return (self.timed_out or self.output_limited or self.memory_limited or self.cpu_limited
                or self.process_limited or self.disk_limited)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.limited

    @property
    def signal_name(self) -> str | None:
        if self.returncode < 0:
            try:
                return signal.Signals(-self.returncode).name
            except ValueError:
                return f"signal {-self.returncode}"
        return None

    def describe(self) -> str:
        """One line: what happened to this run."""
        if self.timed_out:
            return f"{self.name} timed out after {self.wall_s:.1f} s (killed)"
        if self.output_limited:
            return f"{self.name} stopped: output exceeded the limit"
        if self.memory_limited:
            return f"{self.name} stopped: exceeded the memory limit ({self.mem_mb} MB, limits.tool_mem_mb)"
        if self.process_limited:
            return f"{self.name} stopped: exceeded the process limit (processes and threads at once)"
        if self.disk_limited:
            return f"{self.name} stopped: its folder exceeded the disk-use limit"
        if self.cpu_limited:
            return f"{self.name} stopped: exceeded the CPU-time limit"
        if self.signal_name:
            return f"{self.name} crashed ({self.signal_name})"
        if self.returncode != 0:
            return f"{self.name} exited with code {self.returncode}"
        return f"{self.name} ok in {self.wall_s:.2f} s"

    def tail(self, lines: int = 20) -> str:
        text = (self.stdout + "\n" + self.stderr).strip()
        return "\n".join(text.splitlines()[-lines:])

    def check(self) -> ToolResult:
        """Raise ToolError unless the run succeeded."""
        if not self.ok:
            raise ToolError(f"{self.describe()}; see {self.stdout_path}\n{self.tail(8)}")
        return self

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name, "argv": self.argv, "cwd": self.cwd, "returncode": self.returncode,
            "wall_s": round(self.wall_s, 4), "timed_out": self.timed_out,
            "output_limited": self.output_limited, "memory_limited": self.memory_limited,
            "cpu_limited": self.cpu_limited, "process_limited": self.process_limited,
            "disk_limited": self.disk_limited, "sandbox": self.sandbox,
        }


def _is_signal(n: int) -> bool:
    try:
        signal.Signals(n)
        return True
    except ValueError:
        return False


def _read_back(fd: int) -> str:
    """The last READ_BACK_LIMIT bytes of a log, read through hh's own descriptor: the name in the stage folder
    may by now be a link the tool planted."""
    size = os.fstat(fd).st_size
    data = os.pread(fd, min(size, READ_BACK_LIMIT), max(0, size - READ_BACK_LIMIT))
    return data.decode("utf-8", errors="replace")


def _start_error(exe: str, exc: OSError | subprocess.SubprocessError) -> ToolError:
    if isinstance(exc, FileNotFoundError):
        return ToolError(f"cannot start {exe}: {exc.strerror}")
    if isinstance(exc, PermissionError):
        return ToolError(f"cannot start {exe}: permission denied")
    if isinstance(exc, OSError):  # ENOEXEC (a script without #!), E2BIG, ...: the tool's fault, not the run's
        return ToolError(f"cannot start {exe}: {exc.strerror or exc}")
    return ToolError(f"cannot start {exe}: {exc}")  # the resource limits could not be applied in the child


def _gate_note(limits: Sequence[Limit]) -> str:
    """The .sandbox file's first line: the limits, which hh's start gate (``--info-fd`` and ``--seccomp``, added
    to the line below) set on the sandbox before the tool started."""
    names = {resource.RLIMIT_FSIZE: "fsize", resource.RLIMIT_AS: "as", resource.RLIMIT_CPU: "cpu",
             resource.RLIMIT_CORE: "core", resource.RLIMIT_NPROC: "nproc", resource.RLIMIT_STACK: "stack"}
    show = {resource.RLIM_INFINITY: "unlimited"}
    given = " ".join(f"--{names.get(which, str(which))}={show.get(soft, soft)}:{show.get(hard, hard)}"
                     for which, (soft, hard) in limits)
    return (f"# run with these limits (hh's start gate set them on the sandbox before the tool started): "
            f"prlimit {given} <the line below>\n")


def _log_command(log_dir: Path, name: str, argv: Sequence[str], cwd: Path, res: ToolResult | None,
                 removed: Sequence[str] = ()) -> None:
    """Append the command line to COMMANDS (never through a link: ``safeio``), saying what the sweep removed."""
    line = f"cd {shlex.quote(str(cwd))} && {shlex.join(argv)}"
    status = f"# {name}: {res.describe()}" if res else f"# {name}: started"
    if res is not None and res.sandbox != "off":
        status += f" [sandboxed: see {name}.sandbox for the bwrap line]"
    if removed:
        shown = ", ".join(removed[:5]) + (f" and {len(removed) - 5} more" if len(removed) > 5 else "")
        status += f" [removed what it left that is not a file or folder: {shown}]"
    text = f"{status}\n{line}\n"
    with _lock:
        safeio.append_text(log_dir / "COMMANDS", text)
        if _run_commands_file is not None:
            safeio.append_text(_run_commands_file, text)


class _ExitWaiter:
    """``waiter(t)``: True once ``proc`` has exited, waiting at most ``t`` seconds. On Linux a pidfd wakes
    the moment the tool exits; ``Popen.wait(timeout)`` polls with sleeps of up to 50 ms, which cost
    ~25 ms per tool call (measured by ``make bench``)."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        try:
            self.fd: int | None = os.pidfd_open(proc.pid)
        except (AttributeError, OSError):  # not Linux >= 5.3: fall back to polling
            self.fd = None

    def __call__(self, timeout: float) -> bool:
        if self.fd is None:
            try:
                self.proc.wait(timeout=timeout)
                return True
            except subprocess.TimeoutExpired:
                return False
        ready, _, _ = select.select([self.fd], [], [], timeout)
        return bool(ready)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def run_tool(
    argv: Sequence[str | os.PathLike[str]],
    *,
    name: str,
    log_dir: Path,
    timeout_s: float,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    mem_mb: int | None = None,
    cpu_s: int | None = None,
    max_output: int = DEFAULT_MAX_OUTPUT,
    max_file_bytes: int = DEFAULT_MAX_FILE,
    max_procs: int = DEFAULT_MAX_PROCS,
    max_disk_bytes: int = DEFAULT_MAX_DISK,
    resolve: bool = True,
    sandbox: str = "required",
    readable: Sequence[Path] = (),
) -> ToolResult:
    """Run ``argv`` and return what happened. Never raises for the tool's own failure.

    ``max_output`` bounds the logs (checked while waiting); ``max_file_bytes`` is a hard per-file
    cap enforced by the kernel (the tool dies with SIGXFSZ). ``mem_mb`` caps the address space
    (default ``DEFAULT_MEM_MB``; 0 = no cap); ``cpu_s`` caps CPU time (default: a backstop of twice
    the timeout, so a tool orphaned by a killed ``hh`` cannot spin forever). ``argv[0]`` is a tool name from
    ``tools.TOOLS`` (resolved to its path, ToolNotFound if missing)
    or a path. Logs go to ``log_dir/<name>.stdout`` and ``.stderr``.

    ``sandbox``: "required" (default) runs the tool in the bubblewrap sandbox, where it sees the system
    read-only, the paths in ``readable`` read-only, and can write ``log_dir`` and ``cwd`` only; its
    environment is PATH, a private HOME, C locale and ``env``. SandboxUnavailable (exit 3) when
    bubblewrap cannot run here. "off" runs it directly with hh's environment minus secrets.
    """
    if timeout_s is None or timeout_s <= 0:
        raise ValueError("run_tool needs a positive timeout")
    check_mode(sandbox)
    args = [str(a) for a in argv]
    if mem_mb is None:
        mem_mb = DEFAULT_MEM_MB
    if cpu_s is None:
        cpu_s = int(timeout_s * 2) + 30
    extra_env: dict[str, str] = {}
    extra_limits: tuple[Limit, ...] = ()  # a tool's own (tools.tool_limits), set as the runner's are
    if resolve and "/" not in args[0]:
        from .tools import TOOLS

        if args[0] in TOOLS:
            tool = args[0]
            args[0] = str(tool_path(tool))
            extra_env.update(tool_env(tool))
            extra_limits = tool_limits(tool)
    log_dir = Path(log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    cwd = Path(cwd) if cwd else log_dir
    popen_argv = args
    limits = (*rlimits(mem_mb or None, cpu_s or None, max_file_bytes), *extra_limits)
    gate: StartGate | None = None
    cap: ProcessCap | None = None
    ids = identity() if sandbox != "off" else None  # hh is root: the tool runs as this unprivileged id
    if sandbox == "off":
        home = log_dir / ".home"  # a private HOME even unsandboxed (Yosys writes ~/.yosys_history)
        home.mkdir(exist_ok=True)
        full_env = safe_env({"HOME": str(home.resolve()), **extra_env, **(dict(env) if env else {})})
    else:
        probe()  # SandboxUnavailable (exit 3) with what to install or enable, once per process
        inner_env = sandbox_env({**extra_env, **(dict(env) if env else {})})
        exe = Path(args[0])
        box = Sandbox(writable=(log_dir.resolve(), cwd.resolve()),
                      readable=(*(Path(r).resolve() for r in readable), *([exe.parent] if exe.is_absolute() else [])))
        wrapped = box.wrap(args, inner_env, cwd.resolve())
        cap = ProcessCap(max_procs)
        if ids is not None:
            grant(box.readable, box.writable, ids)
            if cap.launcher is None:  # no pids cgroup: RLIMIT_NPROC counts the tool's id (not root) instead
                limits = (*limits, (resource.RLIMIT_NPROC, (max_procs, max_procs)))
        safeio.write_text(log_dir / f"{name}.sandbox", _gate_note(limits) + shlex.join(wrapped) + "\n")
        full_env = {"PATH": BASE_PATH}
        gate = StartGate()  # the last step before the launch: its descriptors are closed on every path from here
        popen_argv = gate.command(wrapped)
    out_path = log_dir / f"{name}.stdout"
    err_path = log_dir / f"{name}.stderr"
    t0 = time.monotonic()
    timed_out = limited = procs_hit = disk_hit = False
    removed: list[str] = []  # what the tool left in its folders that is not a file or folder (swept away)
    with os.fdopen(safeio.create(out_path), "wb") as out, os.fdopen(safeio.create(err_path), "wb") as err:
        try:
            # sandboxed: no preexec_fn (it costs a full fork of hh); the start gate applies the limits, and the
            # sandbox is started where it is born under the process cap
            def popen() -> subprocess.Popen[bytes]:
                return subprocess.Popen(popen_argv, cwd=cwd, env=full_env, stdin=subprocess.DEVNULL, stdout=out,
                                        stderr=err, start_new_session=True,
                                        preexec_fn=None if gate else preexec(limits),
                                        pass_fds=gate.fds() if gate else ())
            if ids is not None:
                hand_over(box.writable, ids)  # its folders are its id's while it runs, hh's again after
            proc = cap.start(popen) if cap is not None else popen()
        except (OSError, subprocess.SubprocessError) as exc:
            if gate is not None:
                gate.close()
            raise _start_error(args[0], exc) from exc
        track_group(proc.pid)  # its session's group: the reaper ends it if hh dies while it runs
        deadline = t0 + timeout_s
        exited = _ExitWaiter(proc)
        try:
            if gate is not None:
                gate.open(limits, deadline)
            while not exited(min(0.25, max(0.001, deadline - time.monotonic()))):
                if time.monotonic() >= deadline:
                    timed_out = True
                elif out.tell() + err.tell() > max_output or (
                    os.fstat(out.fileno()).st_size + os.fstat(err.fileno()).st_size > max_output
                ):
                    limited = True
                procs_hit = cap is not None and cap.hit()
                disk_hit = safeio.usage(log_dir, cwd) > max_disk_bytes
                if timed_out or limited or procs_hit or disk_hit:
                    kill_group(proc.pid)
                    break
            proc.wait()
        except BaseException as exc:
            kill_group(proc.pid)
            proc.wait()
            if isinstance(exc, GateError):
                raise ToolError(f"cannot start {args[0]} in the sandbox: {exc.strerror}") from None
            raise
        finally:
            if gate is not None:
                gate.close()
            exited.close()
            kill_group(proc.pid)  # reap anything the tool left running in its group
            untrack_group(proc.pid)
            removed = safeio.sweep(log_dir, cwd)  # the sandbox has ended: nothing writes there any more
            if ids is not None:
                take_back(box.writable)
            procs_hit = procs_hit or (cap is not None and cap.hit())
        disk_hit = disk_hit or safeio.usage(log_dir, cwd) > max_disk_bytes
        biggest = max(os.fstat(out.fileno()).st_size, os.fstat(err.fileno()).st_size)
        stdout, stderr = _read_back(out.fileno()), _read_back(err.fileno())
        for fh in (out, err):  # on disk too, a log keeps what hh reads back: its last READ_BACK_LIMIT bytes
            safeio.keep_tail(fh.fileno(), READ_BACK_LIMIT)
    if proc.returncode == -signal.SIGXFSZ or biggest >= max_file_bytes:
        limited = True  # killed by the file-size cap (Python children get EFBIG instead of the signal)
    rc = proc.returncode
    if sandbox != "off" and rc != 0 and not stdout and BWRAP_FAILED.match(stderr):
        _log_command(log_dir, name, args, cwd, None, removed)
        raise ToolError(f"cannot start {args[0]} in the sandbox: {stderr.strip().splitlines()[0][:300]}")
    if sandbox != "off" and rc > 128 and _is_signal(rc - 128):
        rc = -(rc - 128)  # bwrap reports a tool killed by signal N as 128+N
        if rc == -signal.SIGXFSZ:
            limited = True
    mem_hit = cpu_hit = False
    if rc != 0 and any(w == resource.RLIMIT_NPROC for w, _ in limits) and FORK_REFUSED.search(stderr[-4096:]):
        procs_hit = True  # a fork refused at RLIMIT_NPROC (no pids cgroup here to tell)
    if rc != 0 and not (timed_out or limited or procs_hit or disk_hit):
        cpu_hit = bool(cpu_s) and rc == -signal.SIGXCPU
        if mem_mb and MEMORY_ERRORS.search(stderr[-4096:] + "\n" + stdout[-4096:]):
            mem_hit = True
    res = ToolResult(
        name=name, argv=args, cwd=str(cwd), returncode=rc,
        wall_s=time.monotonic() - t0, timed_out=timed_out, output_limited=limited,
        memory_limited=mem_hit, cpu_limited=cpu_hit, mem_mb=mem_mb or None, sandbox=sandbox,
        process_limited=procs_hit, disk_limited=disk_hit,
        stdout_path=out_path, stderr_path=err_path, stdout=stdout, stderr=stderr,
    )
    _log_command(log_dir, name, args, cwd, res, removed)
    return res
