"""The one stage runner: folders, files, sandboxed tool runs, ``result.json``, timing, stop at the first failure.

A pipeline is a sequence of declared stages (``stages.model.Stage``); the runner gives the k-th one the
folder ``NN-<id>`` in the run folder (``NN`` its position), writes the scripts and benches its plan
yields, runs each invocation through ``runner.run_tool`` in the sandbox (working directory inside the
stage folder, its logs and ``COMMANDS`` there, the run folder with the canonical design and the design's own
inputs readable, the design's limits), hands back the logs and declared outputs, then writes the stage's
artifacts and ``result.json``.
After a failure every later stage is recorded as skipped with the reason. A ``reuse`` callback may
answer a stage from a cache before it runs (then it has no folder); a cacheable invocation run cleanly
before with the same inputs is answered from ``stages.memo`` (then no process starts).
"""

from __future__ import annotations

import posixpath
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from ..errors import ToolError
from ..jsonio import write_json, write_text_atomic
from ..runner import DEFAULT_MAX_FILE, DEFAULT_MAX_OUTPUT, ToolResult, run_tool
from ..sim.cocotb_run import run_cocotb
from . import memo
from .context import StageContext
from .model import CocotbReply, CocotbRun, Invocation, Reply, Request, Stage, StageResult, ToolRun, skipped

Reuse = Callable[[Stage, StageContext], StageResult | None]


def _design_inputs(ctx: StageContext) -> list[Path]:
    """The user's files a tool may read: the design folder, the testbench, the cocotb test folder."""
    v = ctx.design.verification
    return [Path(p) for p in (ctx.design.base_dir, v.testbench, v.test_dir) if p is not None]


class StageRunner:
    def __init__(self, workdir: Path, ctx: StageContext, reuse: Reuse | None = None) -> None:
        self.workdir = Path(workdir).resolve()
        self.ctx = ctx
        self.reuse = reuse
        ctx.root = self.workdir

    def run(self, stages: Sequence[Stage]) -> list[StageResult]:
        """Run ``stages`` in order; stop at the first failure (later ones skipped, with the reason)."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        out: list[StageResult] = []
        blocked: str | None = None
        for index, stage in enumerate(stages, start=1):
            if blocked is not None:
                out.append(skipped(stage.id, f"not run: {blocked} failed"))
                continue
            why = stage.skip_reason(self.ctx)
            res = skipped(stage.id, why) if why else (self.reuse(stage, self.ctx) if self.reuse else None)
            if res is None:
                res = self._run_stage(stage, f"{index:02d}-{stage.id}")
            self.ctx.results[stage.id] = res
            out.append(res)
            if not res.passed:
                blocked = str(stage.id)
        return out

    def _run_stage(self, stage: Stage, folder: str) -> StageResult:
        ctx = self.ctx
        ctx.here = folder
        ctx.folders[stage.id] = folder
        sdir = self.workdir / folder
        sdir.mkdir(parents=True, exist_ok=True)
        t0 = time.monotonic()
        plan = stage.plan(ctx)
        try:
            request: Request = next(plan)
            while True:
                request = plan.send(self._serve(request, sdir))
        except StopIteration as stop:
            res: StageResult = stop.value
        for name, text in res.files.items():
            write_text_atomic(self._inside(sdir / name), text, errors="surrogateescape")
        res = replace(res, wall_s=time.monotonic() - t0)
        write_json(sdir / "result.json", res.to_dict())
        return res

    def _inside(self, path: Path) -> Path:
        """A file a stage names, refused if it would land outside the run folder."""
        p = Path(path).resolve()
        if p != self.workdir and self.workdir not in p.parents:
            raise ToolError(f"stage file {path} is outside the run folder {self.workdir}")
        return p

    def _serve(self, request: Request, sdir: Path) -> Reply:
        if isinstance(request, CocotbRun):
            return self._cocotb(request, sdir)
        return self._tool(request, sdir)

    def _tool(self, inv: Invocation, sdir: Path) -> ToolRun:
        ctx, lim = self.ctx, self.ctx.design.limits
        cwd = self._inside(sdir / inv.cwd)
        cwd.mkdir(parents=True, exist_ok=True)
        for name, text in inv.files.items():
            write_text_atomic(self._inside(sdir / name), text, errors="surrogateescape")
        for name in inv.outputs:
            self._inside(sdir / name).unlink(missing_ok=True)
        k = memo.key(inv) if inv.cacheable else None
        got = memo.recall(k) if k else None
        if got is not None:  # the same inputs ran cleanly before: no process
            res = ToolResult(inv.name, list(inv.argv), str(cwd), 0, 0.0, sandbox=lim.sandbox,
                             stdout=got.stdout, stderr=got.stderr)
            return ToolRun(res, {n: got.outputs[posixpath.relpath(n, inv.cwd)] for n in inv.outputs
                                 if posixpath.relpath(n, inv.cwd) in got.outputs})
        res = run_tool(list(inv.argv), name=inv.name, log_dir=cwd, timeout_s=inv.timeout_s or ctx.tool_timeout,
                       cwd=cwd, mem_mb=lim.tool_mem_mb, sandbox=lim.sandbox,
                       readable=[self.workdir, *_design_inputs(ctx), *inv.readable],
                       max_file_bytes=inv.max_file_bytes or DEFAULT_MAX_FILE,
                       max_output=inv.max_output or DEFAULT_MAX_OUTPUT)
        if res.signal_name and not res.limited and not inv.crash_is_data:
            raise ToolError(f"{res.describe()} on {ctx.cand.short}; see {res.stderr_path}")
        outputs: dict[str, str] = {}
        for name in inv.outputs:
            path = sdir / name
            if path.is_file():
                outputs[name] = path.read_text(encoding="utf-8", errors="surrogateescape")
                if inv.consume:
                    path.unlink()
        if k and res.ok:
            memo.keep(k, memo.Remembered(res.stdout, res.stderr,
                                         {posixpath.relpath(n, inv.cwd): t for n, t in outputs.items()}))
        return ToolRun(res, outputs)

    def _cocotb(self, req: CocotbRun, sdir: Path) -> CocotbReply:
        lim = self.ctx.design.limits
        out = run_cocotb(sources=[self._inside(sdir / s) for s in req.sources], toplevel=req.toplevel,
                         test_module=req.test_module, test_dir=req.test_dir,
                         build_dir=self._inside(sdir / req.build_dir),
                         timeout_s=req.timeout_s, simulator=req.simulator, params=dict(req.params), seed=req.seed,
                         mem_mb=lim.tool_mem_mb, sandbox=lim.sandbox)
        return CocotbReply(out)
