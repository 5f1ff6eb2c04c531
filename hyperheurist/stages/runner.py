"""The one stage runner: folders, files, sandboxed tool runs, ``result.json``, timing, stop at the first failure.

A pipeline is a sequence of declared stages (``stages.model.Stage``); the runner gives the k-th one the
folder ``NN-<id>`` in the run folder (``NN`` its position), writes the scripts and benches its plan
yields, runs each invocation through ``runner.run_tool`` in the sandbox (``stages.serve``; working directory
inside the stage folder, its logs and ``COMMANDS`` there, the run folder with the canonical design and the design's own
inputs readable, the design's limits), hands back the logs and declared outputs, then writes the stage's
artifacts and ``result.json``.
After a failure every later stage is recorded as skipped with the reason. A ``reuse`` callback may
answer a stage from a cache before it runs (then it has no folder).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from ..jsonio import write_json, write_text_atomic
from ..sim.cocotb_run import run_cocotb
from .context import StageContext
from .model import CocotbReply, CocotbRun, Reply, Request, Stage, StageResult, skipped
from .serve import ToolSite, drive

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

    @property
    def site(self) -> ToolSite:
        """The run folder and the design's limits, as the tool runs see them."""
        return ToolSite.of(self.workdir, self.ctx.design.limits, self.ctx.cand.short, tuple(_design_inputs(self.ctx)))

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
        res = drive(stage.plan(ctx), lambda request: self._serve(request, sdir))
        for name, text in res.files.items():
            write_text_atomic(self.site.inside(sdir / name), text, errors="surrogateescape")
        res = replace(res, wall_s=time.monotonic() - t0)
        write_json(sdir / "result.json", res.to_dict())
        return res

    def _serve(self, request: Request, sdir: Path) -> Reply:
        if isinstance(request, CocotbRun):
            return self._cocotb(request, sdir)
        return self.site.serve(request, sdir)

    def _cocotb(self, req: CocotbRun, sdir: Path) -> CocotbReply:
        lim = self.ctx.design.limits
        out = run_cocotb(sources=[self.site.inside(sdir / s) for s in req.sources], toplevel=req.toplevel,
                         test_module=req.test_module, test_dir=req.test_dir,
                         build_dir=self.site.inside(sdir / req.build_dir),
                         timeout_s=req.timeout_s, simulator=req.simulator, params=dict(req.params), seed=req.seed,
                         mem_mb=lim.tool_mem_mb, sandbox=lim.sandbox,
                         image=self.site.inside(sdir / req.image) if req.image else None)
        return CocotbReply(out)
