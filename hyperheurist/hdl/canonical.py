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
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..candidate import Candidate
from ..errors import ToolError
from ..jsonio import write_text_atomic
from ..runner import ToolResult, run_tool

CANONICAL = "canonical.v"
# macros some tool in the flow predefines (or a user might expect one to): resolved alike for all
TOOL_MACROS = frozenset({
    "SYNTHESIS", "YOSYS", "FORMAL", "VERILATOR", "verilator", "verilator3", "__ICARUS__", "IVERILOG",
    "COCOTB_SIM", "SIMULATION", "__slang__", "SYSTEMVERILOG", "VERILATOR_TIMING", "COVERAGE", "VCS", "MODEL_TECH",
    "XILINX_SIMULATOR", "QUESTA", "XCELIUM", "INCA", "RIVIERA", "ALDEC", "IMPERAS", "SV_COV_ASSERTION",
})
CONDITIONAL = re.compile(r"`(ifdef|ifndef|elsif)[ \t]+([A-Za-z_][A-Za-z0-9_$]*)")
HEADER_EXT = (".vh", ".svh")
SOURCE_EXT = (".v", ".sv")


@dataclass(frozen=True)
class Canonical:
    path: Path  # the canonical text every tool reads
    text: str
    warnings: tuple[str, ...]  # `file:line: ...` for each tool-specific conditional resolved here


class PreprocessError(Exception):
    """The preprocessor rejected the sources (a design fault, reported by the safety gate)."""


def _defines_file(defines: tuple[tuple[str, str], ...], include_dir: str) -> str:
    # ivlpp's -F format (what the iverilog driver writes): D:NAME=VALUE and I:DIR lines
    lines = [f"D:{k}={v}" if v != "" else f"D:{k}=1" for k, v in sorted(defines)]
    lines.append(f"I:{include_dir}")
    return "\n".join(lines) + "\n"


def tool_conditionals(cand: Candidate) -> list[str]:
    """`` `ifdef SYNTHESIS ``-style tests of tool macros, as warnings naming file and line."""
    from ..gates.lexer import lex  # comments and strings blanked: a mention there is not a test

    out = []
    defined = {k for k, _ in cand.defines}
    for name, text in cand.files:
        if not name.lower().endswith(SOURCE_EXT + HEADER_EXT):
            continue
        lx = lex(text)
        for m in CONDITIONAL.finditer(lx.code):
            macro = m.group(2)
            if macro in TOOL_MACROS:
                state = "defined" if macro in defined else "undefined"
                out.append(f"{name}:{lx.line_of(m.start())}: `{m.group(1)} {macro} is resolved once, with "
                           f"{macro} {state}, for every tool (one canonical design)")
    return out


# canonical texts made in this process, by candidate digest (sources and defines) and preprocessor:
# a pure function of them, so the PPA synthesis and the next candidate's golden side reuse it instead
# of starting the preprocessor (a sandboxed call) again
_CACHE: dict[str, str] = {}
_CACHE_ENTRIES, _CACHE_TEXT = 64, 1 << 20


def _cache_key(cand: Candidate) -> str:
    from ..tools import tool_version

    return f"{cand.digest}:{tool_version('ivlpp')}"


def _remember(key: str, text: str) -> None:
    if len(text) > _CACHE_TEXT:
        return
    if len(_CACHE) >= _CACHE_ENTRIES:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = text


def preprocess_with(cand: Candidate, folder: Path, limits) -> Canonical:
    """``preprocess`` under a design's ``limits`` (one place for the gates and the PPA)."""
    return preprocess(cand, folder, timeout_s=limits.tool_timeout_s, mem_mb=limits.tool_mem_mb,
                      sandbox=limits.sandbox, max_bytes=limits.max_file_bytes * limits.max_files)


def _limit(cand: Candidate, cap: int) -> int:
    raw = sum(len(t.encode("utf-8", errors="surrogateescape")) for _, t in cand.files)
    return max(1, min(cap, 8 * raw + (1 << 20)))  # macro bombs stop here, at the kernel's file-size cap


def preprocess(cand: Candidate, folder: Path, *, timeout_s: float, mem_mb: int, sandbox: str,
               max_bytes: int) -> Canonical:
    """Preprocess ``cand`` (its sources already written to ``folder/src``) into ``folder/canonical/``.

    Raises PreprocessError when the sources do not preprocess (or the output exceeds ``max_bytes``),
    ToolError when the preprocessor itself cannot run.
    """
    folder = Path(folder).resolve()
    out_dir = folder / "canonical"
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / CANONICAL
    key = _cache_key(cand)
    if key in _CACHE:  # the gates made it in this process (the PPA, the reference of the next candidate)
        text = _CACHE[key]
        write_text_atomic(path, text, errors="surrogateescape")
        return Canonical(path=path, text=text, warnings=tuple(tool_conditionals(cand)))
    sources = [f"../src/{Path(n).name}" for n, _ in cand.files if n.lower().endswith(SOURCE_EXT)]
    if not sources:
        raise PreprocessError("no Verilog source (.v/.sv) in the candidate")
    (out_dir / "defines.ivlpp").write_text(_defines_file(cand.defines, "../src"), encoding="utf-8")
    tmp = f".{CANONICAL}.part"
    cap = _limit(cand, max_bytes)
    res = run_tool(["ivlpp", "-L", "-Fdefines.ivlpp", f"-o{tmp}", *sources], name="ivlpp", log_dir=out_dir,
                   timeout_s=timeout_s, cwd=out_dir, mem_mb=mem_mb, sandbox=sandbox, max_file_bytes=cap,
                   max_output=1 << 20, readable=[folder / "src"])
    part = out_dir / tmp
    if res.limited or (part.is_file() and part.stat().st_size >= cap):
        part.unlink(missing_ok=True)
        raise PreprocessError(_limited(res, cap))
    if res.signal_name:
        raise ToolError(f"ivlpp {res.describe()} on {cand.short}; see {res.stderr_path}")
    errors = _errors(res)
    if res.returncode != 0 or errors or not part.is_file():
        part.unlink(missing_ok=True)
        raise PreprocessError(errors[0] if errors else f"preprocessing failed: {res.describe()}")
    text = part.read_text(encoding="utf-8", errors="surrogateescape")
    part.unlink()
    write_text_atomic(path, text, errors="surrogateescape")  # two evaluations of one candidate write the same bytes
    _remember(key, text)
    return Canonical(path=path, text=text, warnings=tuple(tool_conditionals(cand)))


def _limited(res: ToolResult, cap: int) -> str:
    if res.timed_out:
        return f"preprocessing timed out after {res.wall_s:.0f} s (runaway macro expansion?)"
    if res.memory_limited:
        return "preprocessing exceeded the memory limit (runaway macro expansion?)"
    return f"the preprocessed design exceeds {cap} bytes (runaway macro expansion?)"


def _errors(res: ToolResult) -> list[str]:
    """ivlpp's error lines, ``../src/x.v:3: message`` made ``x.v:3: message``."""
    out = []
    for line in (res.stderr + "\n" + res.stdout).splitlines()[:200]:
        line = line.strip()[:300]
        if not line or "warning" in line.lower():
            continue
        out.append(line.replace("../src/", ""))
    return out


def canonical_candidate(cand: Candidate, canon: Canonical) -> Candidate:
    """``cand`` with its sources replaced by the canonical text (data files kept): what PPA synthesizes."""
    data = tuple((n, t) for n, t in cand.files if not n.lower().endswith(SOURCE_EXT + HEADER_EXT))
    return Candidate(files=((CANONICAL, canon.text), *data), top=cand.top, params=cand.params, defines=(),
                     parent=cand.parent, move=cand.move, origin=cand.origin, label=cand.label, meta=cand.meta)


LINE_DIRECTIVE = re.compile(r'^[ \t]*`line[ \t]+(\d+)[ \t]+"([^"\n]*)"', re.M)


def origin_locator(text: str):
    """``f(n) -> "file:line"``: where line ``n`` of the canonical text came from (its `` `line ``
    directives name the original file and line), so messages point at what the author wrote."""
    marks: list[tuple[int, int, str]] = []  # (canonical line of the directive, its line number, file)
    for m in LINE_DIRECTIVE.finditer(text):
        marks.append((text.count("\n", 0, m.start()) + 1, int(m.group(1)), m.group(2)))
    starts = [c for c, _, _ in marks]

    def locate(n: int) -> str:
        import bisect

        i = bisect.bisect_right(starts, n - 1) - 1  # the last directive above line n
        if i < 0:
            return f"{CANONICAL}:{n}"
        at, line, name = marks[i]
        return f"{Path(name).name}:{line + (n - at - 1)}"

    return locate
