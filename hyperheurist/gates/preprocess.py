"""The safety gate's second half: the canonical design, and the safety scan run on it.

The first half (``safety.check_safety``) vets the raw text: sizes, names, includes, pasting, a fast
token filter. Then the candidate is preprocessed once (``hdl.canonical``) and the same scan runs on
the canonical text, where macro-built and escaped system tasks, DPI imports spelled through macros,
and code hidden in tool-specific `` `ifdef `` branches are plain to see. Every later gate (and the
PPA synthesis) reads that canonical text; the reference is made canonical the same way.
"""

from __future__ import annotations

from pathlib import Path

from ..candidate import Candidate
from ..errors import ConfigError, ToolError
from ..hdl.canonical import CANONICAL, Canonical, PreprocessError, canonical_candidate, origin_locator, preprocess_with
from .context import GateContext, is_verilog
from .safety import scan_text


def canonicalize(cand: Candidate, folder: Path, ctx: GateContext) -> Canonical:
    return preprocess_with(cand, folder, ctx.design.limits)


def scan_canonical(cand: Candidate, canon: Canonical) -> str | None:
    """The safety scan on the preprocessed text; messages name the original file and line."""
    data = {n for n, _ in cand.files if not is_verilog(n)}
    return scan_text(canon.path.name, canon.text, data, set(), locate=origin_locator(canon.text))


def check_canonical(ctx: GateContext) -> tuple[str | None, dict]:
    """(problem, details) for the candidate; on success ``ctx.canonical`` is set and the golden side
    replaced by its own canonical text."""
    try:
        canon = canonicalize(ctx.cand, ctx.workdir, ctx)
    except PreprocessError as exc:
        return f"preprocessing: {exc}", {}
    problem = scan_canonical(ctx.cand, canon)
    details = {"canonical": str(canon.path), "canonical_bytes": len(canon.text.encode("utf-8", "surrogateescape"))}
    if canon.warnings:
        details["warnings"] = list(canon.warnings)
    if problem:
        return f"after preprocessing: {problem}", details
    ctx.canonical = canon
    if ctx.golden is not None:
        ctx.golden = canonical_golden(ctx.golden, ctx)
    return None, details


def canonical_golden(golden: Candidate, ctx: GateContext) -> Candidate:
    """The reference (or Phase-2 parent) as canonical text, preprocessed like every candidate."""
    folder = ctx.workdir / "golden"
    golden.write(folder)
    try:
        canon = canonicalize(golden, folder, ctx)
    except PreprocessError as exc:
        if golden.origin == "reference":
            raise ConfigError(f"verification.reference: does not preprocess: {exc}") from None
        raise ToolError(f"the golden design {golden.short} does not preprocess: {exc}") from None
    return canonical_candidate(golden, canon)


def load_canonical(workdir: Path) -> Canonical | None:
    """The canonical text an earlier safety gate wrote into ``workdir`` (None if there is none)."""
    path = Path(workdir) / "canonical" / CANONICAL
    if not path.is_file():
        return None
    return Canonical(path=path, text=path.read_text(encoding="utf-8", errors="surrogateescape"), warnings=())
