"""One canonical design: every candidate is preprocessed once, and every tool reads that text.

Why: each tool predefines its own macros (Icarus ``__ICARUS__``, Verilator ``VERILATOR``, Yosys
``SYNTHESIS``/``YOSYS``, cocotb ``COCOTB_SIM``, formal flows ``FORMAL``), so `` `ifdef `` lets one
source show the simulators a correct design and the synthesizer another. Here the sources are
preprocessed by one preprocessor (Icarus' ``ivlpp``, which predefines nothing) under one declared
define set (the candidate's ``defines``); every tool-specific macro is undefined for every tool
(or defined for all, if the design defines it itself). The result, a single file with `` `line ``
directives so messages still name the original files and lines, is what Icarus, Verilator, Yosys
(structure, equivalence, synthesis), pyslang and cocotb compile. Macros are expanded, includes
inlined, conditionals resolved: the safety scan that follows sees what the tools will see.
Every module's unpacked array ports are made packed vectors here, and the arrays connected to them packed
at each instance (``hdl.arrays``: Yosys 0.23 refuses them), so every tool, bench and cocotb test sees the
same flat port. Only the modules the top instantiates (transitively) stay in the text (``hdl.reach``): the
gates elaborate from the top, as Verilator and Edalize do.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..candidate import Candidate
from ..config import Limits
from ..runner import ToolResult
from ..stages.model import Invocation, ToolRun
from .arrays import ArrayPortError, flatten_array_ports
from .literals import define
from .parse import depth_problem
from .reach import reach_from_top
from .tokens import conditionals

CANONICAL = "canonical.v"
# macros some tool in the flow predefines (or a user might expect one to): resolved alike for all
TOOL_MACROS = frozenset({
    "SYNTHESIS", "YOSYS", "FORMAL", "VERILATOR", "verilator", "verilator3", "__ICARUS__", "IVERILOG",
    "COCOTB_SIM", "SIMULATION", "__slang__", "SYSTEMVERILOG", "VERILATOR_TIMING", "COVERAGE", "VCS", "MODEL_TECH",
    "XILINX_SIMULATOR", "QUESTA", "XCELIUM", "INCA", "RIVIERA", "ALDEC", "IMPERAS", "SV_COV_ASSERTION",
})
HEADER_EXT = (".vh", ".svh")
SOURCE_EXT = (".v", ".sv")


@dataclass(frozen=True)
class Canonical:
    text: str  # what every tool reads (saved as canonical/canonical.v in the run folder)
    warnings: tuple[str, ...]  # `file:line: ...` for each tool-specific conditional resolved here
    dropped: tuple[str, ...] = ()  # modules of the sources the top does not instantiate (not in ``text``)


class PreprocessError(Exception):
    """The preprocessor rejected the sources (a design fault, reported by the safety stage)."""


def _defines_file(defines: tuple[tuple[str, str], ...], include_dir: str) -> str:
    # ivlpp's -F format (what the iverilog driver writes): D:NAME=VALUE and I:DIR lines
    lines = [f"D:{k}={v}" if v != "" else f"D:{k}=1" for k, v in sorted(define(k, v) for k, v in defines)]
    lines.append(f"I:{include_dir}")
    return "\n".join(lines) + "\n"


def tool_conditionals(cand: Candidate) -> list[str]:
    """`` `ifdef SYNTHESIS ``-style tests of tool macros, as warnings naming file and line."""
    out = []
    defined = {k for k, _ in cand.defines}
    for name, text in cand.files:
        if not name.lower().endswith(SOURCE_EXT + HEADER_EXT):
            continue
        for line, directive, macro in conditionals(text):  # tokens: a mention in a comment is not a test
            if macro in TOOL_MACROS:
                state = "defined" if macro in defined else "undefined"
                out.append(f"{name}:{line}: `{directive} {macro} is resolved once, with "
                           f"{macro} {state}, for every tool (one canonical design)")
    return out


def output_cap(cand: Candidate, limits: Limits) -> int:
    """Bytes the canonical text may reach: macro bombs stop here, at the kernel's file-size cap."""
    raw = sum(len(t.encode("utf-8", errors="surrogateescape")) for _, t in cand.files)
    return max(1, min(limits.max_file_bytes * limits.max_files, 8 * raw + (1 << 20)))


PART = f".{CANONICAL}.part"


def invocation(cand: Candidate, limits: Limits, *, name: str, cwd: str, src: str) -> Invocation:
    """The ``ivlpp`` run that writes ``PART`` in ``cwd`` from the sources in ``src`` (``src`` relative to
    ``cwd``); no macro predefined, only the candidate's own defines. PreprocessError if there is no source."""
    sources = [f"{src}/{Path(n).name}" for n, _ in cand.files if n.lower().endswith(SOURCE_EXT)]
    if not sources:
        raise PreprocessError("no Verilog source (.v/.sv) in the candidate")
    return Invocation(name=name, argv=("ivlpp", "-L", "-Fdefines.ivlpp", f"-o{PART}", *sources), cwd=cwd,
                      files={f"{cwd}/defines.ivlpp": _defines_file(cand.defines, src)}, outputs=(f"{cwd}/{PART}",),
                      consume=True, cacheable=True, max_file_bytes=output_cap(cand, limits), max_output=1 << 20)


def interpret(cand: Candidate, limits: Limits, run: ToolRun, src: str) -> Canonical:
    """The canonical text from the ``ivlpp`` run, or PreprocessError (the design's fault)."""
    res = run.result
    cap = output_cap(cand, limits)
    text = next(iter(run.outputs.values()), None)
    if res.limited or (text is not None and len(text.encode("utf-8", "surrogateescape")) >= cap):
        raise PreprocessError(_limited(res, cap))
    errors = _errors(res, src)
    if res.returncode != 0 or errors or text is None:
        raise PreprocessError(errors[0] if errors else f"preprocessing failed: {res.describe()}")
    deep = depth_problem(text)
    if deep:
        raise PreprocessError(deep)
    reached = reach_from_top(text, cand.top)
    try:
        text = flatten_array_ports(reached.text)
    except ArrayPortError as exc:
        raise PreprocessError(str(exc)) from None
    return Canonical(text, tuple(tool_conditionals(cand)), reached.dropped)


def _limited(res: ToolResult, cap: int) -> str:
    if res.timed_out:
        return f"preprocessing timed out after {res.wall_s:.0f} s (runaway macro expansion?)"
    if res.memory_limited:
        return "preprocessing exceeded the memory limit (runaway macro expansion?)"
    return f"the preprocessed design exceeds {cap} bytes (runaway macro expansion?)"


def _errors(res: ToolResult, src: str) -> list[str]:
    """ivlpp's error lines, ``../src/x.v:3: message`` made ``x.v:3: message``."""
    out = []
    for line in (res.stderr + "\n" + res.stdout).splitlines()[:200]:
        line = line.strip()[:300]
        if not line or "warning" in line.lower():
            continue
        out.append(line.replace(f"{src}/", ""))
    return out


def canonical_candidate(cand: Candidate, text: str) -> Candidate:
    """``cand`` with its sources replaced by the canonical text (data files kept)."""
    data = tuple((n, t) for n, t in cand.files if not n.lower().endswith(SOURCE_EXT + HEADER_EXT))
    return Candidate(files=((CANONICAL, text), *data), top=cand.top, params=cand.params, defines=(),
                     parent=cand.parent, move=cand.move, origin=cand.origin, label=cand.label, meta=cand.meta)


LINE_DIRECTIVE = re.compile(r'^[ \t]*`line[ \t]+(\d+)[ \t]+"([^"\n]*)"', re.M)


def origin_locator(text: str) -> Callable[[int], str]:
    """``f(n) -> "file:line"``: where line ``n`` of the canonical text came from (its `` `line ``
    directives name the original file and line), so messages point at what the author wrote."""
    marks: list[tuple[int, int, str]] = []  # (canonical line of the directive, its line number, file)
    for m in LINE_DIRECTIVE.finditer(text):
        marks.append((text.count("\n", 0, m.start()) + 1, int(m.group(1)), m.group(2)))
    starts = [c for c, _, _ in marks]

    def locate(n: int) -> str:
        i = bisect.bisect_right(starts, n - 1) - 1  # the last directive above line n
        if i < 0:
            return f"{CANONICAL}:{n}"
        at, line, name = marks[i]
        return f"{Path(name).name}:{line + (n - at - 1)}"

    return locate
