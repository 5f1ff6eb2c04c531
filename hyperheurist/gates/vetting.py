"""The safety stage: the raw-text filter, then one canonical design, and the same scan on that text.

The raw check (``safety.check_safety``) vets sizes, names, includes, pasting and a fast token filter.
Only then are the sources written (``src/``) and preprocessed once (``hdl.canonical``) into
``canonical/canonical.v``; the scan runs again on that text, where macro-built and escaped system
tasks, DPI imports spelled through macros and code in tool-specific `` `ifdef `` branches are plain to
see. Every later stage (the PPA synthesis included) reads that text; the golden side (reference or
Phase-2 parent) is made canonical the same way, in ``golden/``.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace
from pathlib import Path

from ..candidate import Candidate
from ..errors import ConfigError, ToolError
from ..hdl.canonical import Canonical, PreprocessError, canonical_candidate, origin_locator
from ..hdl.filenames import is_verilog
from ..stages.context import CANONICAL, GOLDEN, SRC, StageContext
from ..stages.model import Plan, Reply, Request, StageId, StageResult, call, failed, short
from ..stages.vetted import Vetted
from .preprocess import interpret, invocation
from .safety import check_safety, scan_text


def scan_canonical(cand: Candidate, canon: Canonical) -> str | None:
    """The safety scan on the preprocessed text; messages name the original file and line."""
    data = {n for n, _ in cand.files if not is_verilog(n)}
    return scan_text(Path(CANONICAL).name, canon.text, data, set(), locate=origin_locator(canon.text))


def _sources(cand: Candidate, folder: str) -> dict[str, str]:
    return {f"../{folder}/{Path(n).name}": t for n, t in cand.files}


def _canonical(ctx: StageContext, cand: Candidate, root: str, name: str) -> Generator[Request, Reply, Canonical]:
    """``cand``'s canonical text: made by ``ivlpp`` in ``<root>canonical/`` from ``<root>src/`` (the runner
    answers it from ``stages.memo`` when these sources were preprocessed before)."""
    inv = invocation(cand, ctx.design.limits, name=name, cwd=f"../{root}canonical", src="../src")
    run = yield from call(replace(inv, files={**_sources(cand, f"{root}src"), **inv.files}))
    return interpret(cand, ctx.design.limits, run, "../src")


class SafetyStage:
    id = StageId.SAFETY
    inputs = ("candidate sources", "golden sources")
    outputs = (SRC, CANONICAL, f"{GOLDEN}/{CANONICAL}")
    config = ("limits.max_files", "limits.max_file_bytes", "limits.tool_timeout_s", "limits.tool_mem_mb")

    def skip_reason(self, ctx: StageContext) -> str | None:
        return None

    def plan(self, ctx: StageContext) -> Plan:
        raw = check_safety(ctx.cand, ctx.design.limits)
        if not raw.passed:
            return failed(self.id, raw.message)
        files = _sources(ctx.cand, SRC)
        try:
            canon = yield from _canonical(ctx, ctx.cand, "", "ivlpp")
        except PreprocessError as exc:
            return StageResult(self.id, False, f"preprocessing: {exc}", files=files)
        files[f"../{CANONICAL}"] = canon.text
        size = len(canon.text.encode("utf-8", "surrogateescape"))
        details: dict[str, object] = {"canonical": CANONICAL, "canonical_bytes": size}
        if canon.warnings:
            details["warnings"] = list(canon.warnings)
        kept = ""
        if canon.dropped:
            details["dropped_modules"] = list(canon.dropped)
            kept = (f"; from top `{ctx.cand.top}`: {len(canon.dropped)} module(s) it does not instantiate dropped: "
                    f"{', '.join(canon.dropped[:8])}{' ...' if len(canon.dropped) > 8 else ''}")
        problem = scan_canonical(ctx.cand, canon)
        if problem:
            return StageResult(self.id, False, short(f"after preprocessing: {problem}"), details, files=files)
        golden = None
        if ctx.golden is not None:
            golden = yield from self._golden(ctx, ctx.golden, files)
        return StageResult(self.id, True, short(f"{raw.message}; one canonical design for every tool{kept}"), details,
                           files=files, value=Vetted(canon, golden))

    def _golden(self, ctx: StageContext, golden: Candidate,
                files: dict[str, str]) -> Generator[Request, Reply, Candidate]:
        """The reference (or Phase-2 parent) as canonical text, preprocessed like every candidate."""
        try:
            canon = yield from _canonical(ctx, golden, f"{GOLDEN}/", "ivlpp-golden")
        except PreprocessError as exc:
            if golden.origin == "reference":
                raise ConfigError(f"verification.reference: does not preprocess: {exc}") from None
            raise ToolError(f"the golden design {golden.short} does not preprocess: {exc}") from None
        files.update(_sources(golden, f"{GOLDEN}/{SRC}"))
        files[f"../{GOLDEN}/{CANONICAL}"] = canon.text
        return canonical_candidate(golden, canon.text)
