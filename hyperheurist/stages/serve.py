"""Serving a plan's tool invocations: files written, the tool run sandboxed, declared outputs read back.

The stage runner serves every stage's invocations here, and a plan run outside a pipeline (a rewrite
proof, ``rewrite.prove``) is served the same way, so one tool run means one thing everywhere: a crash
is the tool's fault (``ToolError``) unless the invocation says ``crash_is_data``; a cacheable invocation
run cleanly before with the same inputs is answered from ``stages.memo`` (then no process starts).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Generator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ..config import Limits
from ..errors import ToolError
from ..jsonio import write_text_atomic
from ..runner import DEFAULT_MAX_FILE, DEFAULT_MAX_OUTPUT, ToolResult, run_tool
from . import memo
from .model import Invocation, Reply, Request, ToolRun

T = TypeVar("T")


@dataclass(frozen=True)
class ToolSite:
    """Where and how invocations run: ``root`` holds every file they name (and is readable to them)."""

    root: Path
    readable: tuple[Path, ...]  # besides ``root``: the design's own inputs
    timeout_s: float  # for an invocation without its own
    mem_mb: int
    sandbox: str
    who: str  # names the design in a tool-fault message

    @classmethod
    def of(cls, root: Path, limits: Limits, who: str, readable: tuple[Path, ...] = ()) -> ToolSite:
        """``root`` under the design's limits: ``tool_timeout_s``, ``tool_mem_mb``, ``sandbox`` (the stage runner's
        site and a proof's outside a pipeline, ``formal.driver.prove_in``, are made here alike)."""
        return cls(root, readable, limits.tool_timeout_s, limits.tool_mem_mb, limits.sandbox, who)

    def inside(self, path: Path) -> Path:
        """A file an invocation names, refused if it would land outside ``root``."""
        p = Path(path).resolve()
        if p != self.root and self.root not in p.parents:
            raise ToolError(f"stage file {path} is outside the run folder {self.root}")
        return p

    def serve(self, inv: Invocation, folder: Path) -> ToolRun:
        """Run ``inv`` with ``folder`` as its base (its ``cwd``, files and outputs are relative to it)."""
        cwd = self.inside(folder / inv.cwd)
        cwd.mkdir(parents=True, exist_ok=True)
        for name, text in inv.files.items():
            write_text_atomic(self.inside(folder / name), text, errors="surrogateescape")
        for name in inv.outputs:
            self.inside(folder / name).unlink(missing_ok=True)
        k = memo.key(inv) if inv.cacheable else None
        got = memo.recall(k) if k else None
        if got is not None:
            res = ToolResult(inv.name, list(inv.argv), str(cwd), 0, 0.0, sandbox=self.sandbox,
                             stdout=got.stdout, stderr=got.stderr)
            return ToolRun(res, {n: got.outputs[posixpath.relpath(n, inv.cwd)] for n in inv.outputs
                                 if posixpath.relpath(n, inv.cwd) in got.outputs})
        res = run_tool(list(inv.argv), name=inv.name, log_dir=cwd, timeout_s=inv.timeout_s or self.timeout_s,
                       cwd=cwd, mem_mb=self.mem_mb, cpu_s=inv.cpu_s, sandbox=self.sandbox,
                       readable=[self.root, *self.readable, *inv.readable],
                       max_file_bytes=inv.max_file_bytes or DEFAULT_MAX_FILE,
                       max_output=inv.max_output or DEFAULT_MAX_OUTPUT)
        if res.signal_name and not res.limited and not inv.crash_is_data:
            raise ToolError(f"{res.describe()} on {self.who}; see {res.stderr_path}")
        outputs: dict[str, str] = {}
        for name in inv.outputs:
            path = folder / name
            if path.is_file():
                outputs[name] = path.read_text(encoding="utf-8", errors="surrogateescape")
                if inv.consume:
                    path.unlink()
        if k and res.ok:
            memo.keep(k, memo.Remembered(res.stdout, res.stderr,
                                         {posixpath.relpath(n, inv.cwd): t for n, t in outputs.items()}))
        return ToolRun(res, outputs)


def drive(plan: Generator[Request, Reply, T], serve: Callable[[Request], Reply]) -> T:
    """Run ``plan`` to its end, answering each request with ``serve``; its return value."""
    try:
        request = next(plan)
        while True:
            request = plan.send(serve(request))
    except StopIteration as stop:
        out: T = stop.value
        return out
