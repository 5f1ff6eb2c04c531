"""Synthesis: a Recipe becomes a Yosys script (flatten, dfflibmap, abc -liberty) run in one process.

Every Recipe knob changes the script: ``flatten``, ``fsm``/``fsm_encoding`` (``fsm -encoding``),
``share``, ``opt_full`` (``opt -full``), ``abc_script`` (distinct ABC command sequences) and
``abc_delay_target_ps`` (``abc -D``). The netlist is written in the form OpenSTA 2019 accepts
(``-simple-lhs``: no concatenated assign targets, which it rejects when output bits share a driver).
Sources keep their own names (a Yosys error names the user's file and line) and are given to Yosys
relative to the stage folder it runs in.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

from ..candidate import Candidate
from ..config import PARAM_LITERAL
from ..errors import EXIT_INVALID, ConfigError, ToolError
from ..recipe import Recipe
from ..runner import run_tool

# ABC command sequences per abc_script value; ``{D}`` becomes ``-D <ps>`` when a target is set.
# "default" uses Yosys' own liberty script (no -script argument); "fast" uses ``abc -fast``.
ABC_SCRIPTS: dict[str, str | None] = {
    "default": None,
    "fast": None,
    "area": "+strash;ifraig;scorr;dc2;strash;dch,-f;map,-a,{D};topo",
    "delay": "+strash;ifraig;scorr;dc2;strash;dch,-f;map,{D};buffer,-p;upsize,{D};dnsize,{D}",
    "resyn2": "+strash;balance;rewrite;refactor;balance;rewrite;rewrite,-z;balance;refactor,-z;"
              "rewrite,-z;balance;map,{D};topo",
}
_PARAM_VALUE = PARAM_LITERAL  # one rule: config.py refuses at load what synthesis would refuse here
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
_DEFINE_VALUE = re.compile(r"^[A-Za-z0-9_.'+-]*$")
_VERILOG_EXT = (".v", ".sv")
# `file:line: ERROR: ...` (Yosys' own form for front-end errors) before any bare `ERROR:` line
_LOCATED_ERROR = re.compile(r"^\s*(.+?):(\d+):\s*ERROR:(.*)$")
NETLIST = "netlist.v"


class SynthesisRejected(ToolError):
    """Yosys refused the RTL itself (a read or elaboration error, or our limits): the design's fault."""

    exit_code = EXIT_INVALID


@dataclass(frozen=True)
class SynthResult:
    netlist: Path
    wall_s: float
    warnings: int


def _quote(path: Path) -> str:
    text = str(path)
    if '"' in text or "\n" in text:
        raise ToolError(f"unusable path for Yosys: {text!r}")
    return f'"{text}"'


def _param_args(cand: Candidate) -> list[str]:
    out: list[str] = []
    for name, value in sorted(cand.params):
        value = str(value).strip()
        if not _IDENT.match(name) or not _PARAM_VALUE.match(value):
            raise ConfigError(f"parameter override {name}={value!r}: expected a Verilog identifier and constant")
        out.append(f"-chparam {name} {value}")
    return out


def _define_args(cand: Candidate) -> list[str]:
    out: list[str] = []
    for name, value in sorted(cand.defines):
        value = str(value)
        if not _IDENT.match(name) or not _DEFINE_VALUE.match(value):
            raise ConfigError(f"define {name}={value!r}: expected an identifier and a plain value")
        out.append(f"-D{name}={value}" if value else f"-D{name}")
    return out


def build_script(sources: list[Path], top: str, recipe: Recipe, liberty: Path, params: list[str], *,
                 include_dirs: list[Path] = (), defines: list[str] = ()) -> str:  # type: ignore[assignment]
    """The Yosys script for one recipe (pure: easy to test that every knob matters)."""
    lib = _quote(liberty)
    opt = "opt -full" if recipe.opt_full else "opt"
    for d in include_dirs:  # our own folder names, relative to the stage folder
        if not _SAFE_NAME.match(str(d)):
            raise ToolError(f"unusable include folder for Yosys: {str(d)!r}")
    front = "".join(f"-I{d} " for d in include_dirs) + "".join(f"{d} " for d in defines)
    # -sv always, as the structure and equivalence gates read it: one language for one canonical text
    lines = [f"read_verilog -defer -sv {front}{_quote(s)}" for s in sources]
    lines.append(" ".join(["hierarchy -check -top", top, *params]))
    lines += ["proc", "flatten" if recipe.flatten else "# flatten: off (hierarchy kept)", "opt_expr", "opt_clean"]
    if recipe.fsm:
        lines.append("fsm" if recipe.fsm_encoding == "auto" else f"fsm -encoding {recipe.fsm_encoding}")
    else:
        lines.append("# fsm: off")
    lines += [opt, "wreduce", "peepopt", "opt_clean"]
    lines.append("share" if recipe.share else "# share: off")
    lines += ["alumacc", opt, "memory -nomap", "opt_clean", "memory_map", opt, "techmap", opt,
              f"dfflibmap -liberty {lib}", opt]
    abc = f"abc -liberty {lib}"
    target = f"-D {recipe.abc_delay_target_ps}" if recipe.abc_delay_target_ps else ""
    script = ABC_SCRIPTS[recipe.abc_script]
    if recipe.abc_script == "fast":
        abc += " -fast"
    if script is not None:
        abc += f" -script {script}"  # Yosys itself replaces {D} by the -D option (or nothing)
    if target:
        abc += f" {target}"
    lines += [abc, "opt_clean -purge", "setundef -zero", "splitnets -ports" if not recipe.flatten else "splitnets",
              "opt_clean -purge", f"hierarchy -top {top}", "check",
              f"write_verilog -noattr -noexpr -nohex -nodec -simple-lhs {NETLIST}"]
    return "\n".join(lines) + "\n"


def first_error(text: str) -> str | None:
    """The first real error of a Yosys log (``file:line: ERROR: ...`` first), without the noise around it.

    Paths are cut to the file name: the stage folder means nothing to the reader (or to an LLM)."""
    lines = text.splitlines()
    for line in lines:
        if "** cmd error" in line:  # ABC's own complaint explains the ERROR Yosys prints after it
            return line.strip()
    for line in lines:
        m = _LOCATED_ERROR.match(line)
        if m:
            return f"{Path(m.group(1)).name}:{m.group(2)}: ERROR:{m.group(3)}".strip()
    for line in lines:
        if "ERROR:" in line:
            return line.strip()
    return None


def write_sources(cand: Candidate, folder: Path) -> list[Path]:
    """Write every candidate file into ``folder/src`` under its own name; return the ones to read.

    Headers are written but only reached through `include (``-I src``); data files sit beside them.
    A name unfit for a Yosys script (the safety gate normally refused it already) gets our own name."""
    src = folder / "src"
    src.mkdir(parents=True, exist_ok=True)
    sources = []
    for i, (name, text) in enumerate(cand.files):
        base = Path(name).name
        if not _SAFE_NAME.match(base):
            base = f"f{i:02d}{'.sv' if name.endswith('.sv') else '.v'}"
        p = src / base
        p.write_text(text, encoding="utf-8", errors="surrogateescape")
        if base.lower().endswith(_VERILOG_EXT):
            sources.append(p)
    return sources


def synthesize(cand: Candidate, recipe: Recipe, liberty: Path, folder: Path, *, timeout_s: float,
               mem_mb: int | None = None, sandbox: str = "required") -> SynthResult:
    """Run Yosys in ``folder``; the netlist lands in ``folder/netlist.v``. Failures raise ToolError."""
    folder = Path(folder).resolve()
    sources = [p.relative_to(folder) for p in write_sources(cand, folder)]
    script = build_script(sources, cand.top, recipe, Path(liberty), _param_args(cand),
                          include_dirs=[Path("src")], defines=_define_args(cand))
    (folder / "synth.ys").write_text(script, encoding="utf-8")
    t0 = time.monotonic()
    res = run_tool(["yosys", "-q", "-l", "yosys.log", "-s", "synth.ys"], name="yosys", log_dir=folder,
                   timeout_s=timeout_s, cwd=folder, mem_mb=mem_mb, sandbox=sandbox,
                   readable=[Path(liberty).resolve().parent])
    wall = time.monotonic() - t0
    if not res.ok or not (folder / NETLIST).is_file():
        err = first_error(res.stdout + "\n" + res.stderr)
        if err is None and (folder / "yosys.log").is_file():
            err = first_error((folder / "yosys.log").read_text(encoding="utf-8", errors="replace"))
        where = f"(log: {folder / 'yosys.log'})"
        if res.limited or (err is not None and res.returncode not in (0, None) and not res.signal_name):
            raise SynthesisRejected(f"yosys rejected the design: {err or res.describe()} {where}")
        raise ToolError(f"yosys synthesis failed: {err or res.describe()} {where}")
    warnings = sum(1 for ln in (res.stdout + res.stderr).splitlines() if ln.startswith("Warning"))
    return SynthResult(folder / NETLIST, wall, warnings)
