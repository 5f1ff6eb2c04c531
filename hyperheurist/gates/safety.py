"""Gate 1, safety: vet untrusted RTL text before any tool reads it.

Rejects: too many or too large files, binary data, unsafe file names; system tasks outside an
allow-list (file I/O, ``$system``, dumps, Verilator's ``$c`` C++ escapes, ...); ``$readmemh/b`` of
anything but a data file shipped with the candidate; ``include`` of anything but a candidate
header; macro token pasting (it could assemble a forbidden name); Verilator ``systemc_*`` code
blocks; SystemVerilog DPI ``import "DPI-C"`` / ``export`` (it links any C function, ``system()``
included, into a Verilator simulation); ``translate_off`` pragmas (the simulated and the synthesized
design would differ). Tokens come from pyslang's lexer (hdl.tokens): a name in a comment or a string is no call.
An allow-list rather than a deny-list because the input is adversarial by assumption.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from ..candidate import Candidate
from ..config import Limits
from ..hdl.filenames import SAFE_NAME, is_header, is_verilog
from ..hdl.mismatch import pragma_words
from ..hdl.tokens import Kind, Tok, scan
from .result import GateResult, failed, passed

ALLOWED_TASKS = frozenset("""
display displayb displayh displayo write writeb writeh writeo strobe strobeb strobeh strobeo
monitor monitorb monitorh monitoro monitoron monitoroff
finish stop fatal error warning info exit
time stime realtime timeformat printtimescale
random urandom urandom_range dist_uniform dist_normal dist_exponential dist_poisson dist_chi_square dist_t dist_erlang
signed unsigned cast clog2 bits size high low left right increment dimensions unpacked_dimensions typename
countones countbits onehot onehot0 isunknown
rtoi itor realtobits bitstoreal shortrealtobits bitstoshortreal
ln log10 exp sqrt pow floor ceil sin cos tan asin acos atan atan2 hypot sinh cosh tanh asinh acosh atanh
sformat sformatf psprintf swrite swriteb swriteh swriteo sscanf
readmemh readmemb
test$plusargs value$plusargs
past rose fell stable changed sampled
""".split())
DENIED_HINT = {
    "system": "runs a shell command", "fopen": "opens a file", "fwrite": "writes a file",
    "fdisplay": "writes a file", "dumpfile": "writes a waveform file", "dumpvars": "writes a waveform file",
    "c": "embeds C++ code (Verilator)", "writememh": "writes a file", "writememb": "writes a file",
}
READMEM = ("$readmemh", "$readmemb")
DENIED_DIRECTIVE = re.compile(r"^`(systemc_\w+|verilator_config)$")
RESERVED = ("hhref_", "hh_")
PRAGMA_OFF = re.compile(r"\b(translate_off|synthesis_off|translate\s+off)\b", re.I)
# raw text with none of these has nothing this scan looks for: it is not lexed at all
TRIGGERS = ("$", "`", "\\", "import", "export", "hh_", "hhref_")


def _check_sizes(cand: Candidate, limits: Limits) -> str | None:
    if len(cand.files) > limits.max_files:
        return f"{len(cand.files)} files: more than limits.max_files={limits.max_files}"
    if not any(is_verilog(n) and not is_header(n) for n, _ in cand.files):
        return "no Verilog source (.v/.sv) in the candidate"
    names = [n for n, _ in cand.files]
    for name, text in cand.files:
        if not SAFE_NAME.match(name) or name in (".", ".."):
            return f"{name!r}: unsafe file name (use letters, digits, _ . - and no folders)"
        if names.count(name) > 1:
            return f"{name}: two files with the same name"
        size = len(text.encode("utf-8", errors="surrogateescape"))
        if size > limits.max_file_bytes:
            return f"{name}: {size} bytes, more than limits.max_file_bytes={limits.max_file_bytes}"
        if is_verilog(name) and ("\x00" in text or any("\udc80" <= ch <= "\udcff" for ch in text)):
            return f"{name}: binary data or invalid UTF-8 in a Verilog file"
    return None


def hides_code(comment: str) -> bool:
    """A ``translate_off``/``synthesis_off`` pragma (a tool's word first: ``// synopsys translate_off``, or the
    directive itself), not a comment that merely mentions one."""
    body = (comment[2:-2] if comment.startswith("/*") else comment[2:]).strip().lower()
    if re.match(r"(translate_off|synthesis_off|translate\s+off)\b", body):
        return True
    return bool(pragma_words(comment, ("translate_off", "synthesis_off", "translate off")))


def scan_text(name: str, text: str, data_files: set[str], headers: set[str],
              locate: Callable[[int], str] | None = None) -> str | None:
    """The first problem in one file, as ``file:line: what``; ``locate`` maps a line number of
    ``text`` to ``file:line`` (the canonical text maps back through its `` `line `` directives)."""
    pragma = PRAGMA_OFF.search(text) is not None
    if not pragma and not any(t in text for t in TRIGGERS):
        return None
    sc = scan(text, comments=pragma)  # comments are only read when the raw text mentions a pragma
    if sc.unterminated:
        return None  # unterminated comment/string: a syntax error, the compile gate words it better

    def where(offset: int) -> str:
        n = sc.line_of(offset)
        return locate(n) if locate else f"{name}:{n}"

    for off, comment in sc.comments:
        if hides_code(comment):
            return (f"{where(off)}: translate_off/synthesis_off pragmas are not allowed (simulation and synthesis "
                    "would see different designs)")
    for t in sc.of(Kind.PASTE):
        return f"{where(t.offset)}: macro token pasting (``) is not allowed"
    for t in sc.of(Kind.ESCAPED):
        if t.text.startswith("\\$"):  # an identifier to the parser, a task call to Icarus
            return (f"{where(t.offset)}: escaped identifier `{t.text}` names a system task "
                    "(a simulator may call it): not allowed")
    for t in sc.of(Kind.FOREIGN):
        return (f"{where(t.offset)}: {t.text} \"{t.arg}\" is not allowed (the DPI links foreign "
                "functions such as libc's system() into the simulation)")
    for t in sc.of(Kind.DECLARED):
        if t.arg is not None and t.arg.startswith(RESERVED):
            return f"{where(t.offset)}: {t.text} name `{t.arg}` uses a prefix reserved for hh's own testbenches"
    for t in sc.of(Kind.SYSTEM):
        problem = _system_call(t, data_files)
        if problem:
            return f"{where(t.offset)}: {problem}"
    for t in sc.of(Kind.DIRECTIVE):
        if DENIED_DIRECTIVE.match(t.text):
            return f"{where(t.offset)}: {t.text} is not allowed (embeds foreign code)"
        if t.text == "`include":
            if t.arg is None:
                return f"{where(t.offset)}: `include needs a \"file\" name"
            if t.arg not in headers:
                return (f"{where(t.offset)}: `include \"{t.arg}\": only headers shipped with the candidate may be "
                        "included (plain names, no folders)")
    return None


def _system_call(t: Tok, data_files: set[str]) -> str | None:
    task = t.text[1:]
    if t.text in READMEM:
        if t.arg is None:
            return f"{t.text} needs a literal file name"
        if t.arg not in data_files:
            return (f"{t.text}(\"{t.arg}\"): only data files shipped with the candidate may be read "
                    "(plain names, no folders)")
    elif task not in ALLOWED_TASKS:
        hint = DENIED_HINT.get(task) or ("file I/O" if task.startswith("f") else "not on the allow-list")
        return f"system task {t.text} is not allowed in a design ({hint})"
    return None


def check_safety(cand: Candidate, limits: Limits) -> GateResult:
    """Pure text checks; no tool runs, nothing is written."""
    t0 = time.monotonic()
    problem = _check_sizes(cand, limits)
    if problem is None:
        names = {n for n, _ in cand.files}
        data = {n for n in names if not is_verilog(n)}
        headers = {n for n in names if is_verilog(n)}
        for name, text in cand.files:
            if is_verilog(name):
                problem = scan_text(name, text, data, headers)
                if problem:
                    break
    wall = time.monotonic() - t0
    if problem:
        return failed("safety", problem, wall)
    return passed("safety", f"{len(cand.files)} file(s) vetted", wall)
