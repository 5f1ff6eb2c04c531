"""The one way external tools are run.

argv lists only (never a shell), stdin closed, a mandatory timeout, the whole process group killed
on timeout or runaway output, stdout/stderr kept in log files, the command line appended to
``COMMANDS`` beside the logs (and to the run-level file when one is set), the environment stripped
of secrets.
"""

from __future__ import annotations

import os
import re
import resource
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from .errors import ToolError
from .tools import tool_env, tool_path

SECRET_ENV = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)|^(OPENAI_|ANTHROPIC_|AZURE_OPENAI)", re.I)
DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024  # bytes of stdout+stderr before the tool is stopped (polled)
DEFAULT_MAX_FILE = 1024 * 1024 * 1024  # hard cap on any one file a tool writes (RLIMIT_FSIZE)
READ_BACK_LIMIT = 8 * 1024 * 1024  # bytes of each stream kept in memory

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
    stdout_path: Path | None = None
    stderr_path: Path | None = None
    stdout: str = ""
    stderr: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.output_limited

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
        if self.signal_name:
            return f"{self.name} crashed ({self.signal_name})"
        if self.returncode != 0:
            return f"{self.name} exited with code {self.returncode}"
        return f"{self.name} ok in {self.wall_s:.2f} s"

    def tail(self, lines: int = 20) -> str:
        text = (self.stdout + "\n" + self.stderr).strip()
        return "\n".join(text.splitlines()[-lines:])

    def check(self) -> "ToolResult":
        """Raise ToolError unless the run succeeded."""
        if not self.ok:
            raise ToolError(f"{self.describe()}; see {self.stdout_path}\n{self.tail(8)}")
        return self

    def to_dict(self) -> dict:
        return {
            "name": self.name, "argv": self.argv, "cwd": self.cwd, "returncode": self.returncode,
            "wall_s": round(self.wall_s, 4), "timed_out": self.timed_out,
            "output_limited": self.output_limited,
        }


def _limits(mem_mb: int | None, cpu_s: int | None, file_bytes: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
        if mem_mb:
            b = mem_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (b, b))
        if cpu_s:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 5))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _read_back(path: Path) -> str:
    size = path.stat().st_size
    with open(path, "rb") as fh:
        if size > READ_BACK_LIMIT:
            fh.seek(size - READ_BACK_LIMIT)
        data = fh.read()
    return data.decode("utf-8", errors="replace")


def _log_command(log_dir: Path, name: str, argv: Sequence[str], cwd: Path, res: ToolResult | None) -> None:
    line = f"cd {shlex.quote(str(cwd))} && {shlex.join(argv)}"
    status = f"# {name}: {res.describe()}" if res else f"# {name}: started"
    text = f"{status}\n{line}\n"
    with _lock:
        with open(log_dir / "COMMANDS", "a", encoding="utf-8") as fh:
            fh.write(text)
        if _run_commands_file is not None:
            with open(_run_commands_file, "a", encoding="utf-8") as fh:
                fh.write(text)


def run_tool(
    argv: Sequence[str | os.PathLike],
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
    resolve: bool = True,
) -> ToolResult:
    """Run ``argv`` and return what happened. Never raises for the tool's own failure.

    ``max_output`` bounds the logs (checked while waiting); ``max_file_bytes`` is a hard per-file
    cap enforced by the kernel (the tool dies with SIGXFSZ). ``argv[0]`` is a tool name from ``tools.TOOLS`` (resolved to its path, ToolNotFound if missing)
    or a path. Logs go to ``log_dir/<name>.stdout`` and ``.stderr``.
    """
    if timeout_s is None or timeout_s <= 0:
        raise ValueError("run_tool needs a positive timeout")
    argv = [str(a) for a in argv]
    extra_env: dict[str, str] = {}
    if resolve and "/" not in argv[0]:
        from .tools import TOOLS

        if argv[0] in TOOLS:
            tool = argv[0]
            argv[0] = str(tool_path(tool))
            extra_env.update(tool_env(tool))
    log_dir = Path(log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    cwd = Path(cwd) if cwd else log_dir
    full_env = safe_env({**extra_env, **(dict(env) if env else {})})
    out_path = log_dir / f"{name}.stdout"
    err_path = log_dir / f"{name}.stderr"
    t0 = time.monotonic()
    timed_out = limited = False
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        try:
            proc = subprocess.Popen(
                argv, cwd=cwd, env=full_env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                start_new_session=True, preexec_fn=_limits(mem_mb, cpu_s, max_file_bytes),
            )
        except FileNotFoundError as exc:
            raise ToolError(f"cannot start {argv[0]}: {exc.strerror}") from exc
        except PermissionError as exc:
            raise ToolError(f"cannot start {argv[0]}: permission denied") from exc
        deadline = t0 + timeout_s
        try:
            while True:
                try:
                    proc.wait(timeout=min(0.25, max(0.001, deadline - time.monotonic())))
                    break
                except subprocess.TimeoutExpired:
                    if time.monotonic() >= deadline:
                        timed_out = True
                    elif out.tell() + err.tell() > max_output or (
                        out_path.stat().st_size + err_path.stat().st_size > max_output
                    ):
                        limited = True
                    if timed_out or limited:
                        _kill_group(proc.pid)
                        proc.wait()
                        break
        except BaseException:
            _kill_group(proc.pid)
            proc.wait()
            raise
        finally:
            _kill_group(proc.pid)  # reap anything the tool left running in its group
    if proc.returncode == -signal.SIGXFSZ or max(out_path.stat().st_size, err_path.stat().st_size) >= max_file_bytes:
        limited = True  # killed by the file-size cap (Python children get EFBIG instead of the signal)
    res = ToolResult(
        name=name, argv=argv, cwd=str(cwd), returncode=proc.returncode,
        wall_s=time.monotonic() - t0, timed_out=timed_out, output_limited=limited,
        stdout_path=out_path, stderr_path=err_path,
        stdout=_read_back(out_path), stderr=_read_back(err_path),
    )
    _log_command(log_dir, name, argv, cwd, res)
    return res
