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
gates elaborate from the top, as Verilator and Edalize do. The ``ivlpp`` run itself is the safety stage's
(``gates.preprocess``); this module holds what is said about the text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..candidate import Candidate
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
