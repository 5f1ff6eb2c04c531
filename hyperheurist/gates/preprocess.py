"""The preprocessing run of the safety stage: the ``ivlpp`` invocation that makes a candidate's one
canonical text (``hdl.canonical`` says why there is one), and reading its output back.

A stage's plan (``stages.model``) and the design's limits (``config``) belong to the stages above ``hdl``;
the text itself (array ports packed, unreached modules dropped, tool conditionals named) is ``hdl``'s.
"""

from __future__ import annotations

from pathlib import Path

from ..candidate import Candidate
from ..config import Limits
from ..hdl.arrays import ArrayPortError, flatten_array_ports
from ..hdl.canonical import CANONICAL, SOURCE_EXT, Canonical, PreprocessError, tool_conditionals
from ..hdl.literals import define
from ..hdl.parse import depth_problem
from ..hdl.reach import reach_from_top
from ..runner import ToolResult
from ..stages.model import Invocation, ToolRun


def _defines_file(defines: tuple[tuple[str, str], ...], include_dir: str) -> str:
    # ivlpp's -F format (what the iverilog driver writes): D:NAME=VALUE and I:DIR lines
    lines = [f"D:{k}={v}" if v != "" else f"D:{k}=1" for k, v in sorted(define(k, v) for k, v in defines)]
    lines.append(f"I:{include_dir}")
    return "\n".join(lines) + "\n"


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
