"""The synthesis stage of ``hh gate``: does the canonical design synthesize (Yosys' generic ``synth``)?

In an evaluation the PPA synthesis onto the liberty (``ppa.synth.SynthesisStage``) gives this verdict
instead; ``hh gate`` needs no liberty, so it asks Yosys' technology-independent flow.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from ..stages.context import StageContext
from ..stages.crash import blame
from ..stages.model import Invocation, Plan, StageId, call, failed, passed
from .tooling import clip, strip_paths

NETLIST = "netlist.v"
# Yosys writes `file.v:17: ERROR: ...` for front-end errors
ERROR = re.compile(r"^((?:\S+?:\d+:\s*)?)ERROR: (.*)$", re.M)


@dataclass(frozen=True)
class GenericNetlist:
    """The generic synthesis's output: its netlist (run-folder-relative) and text (Yosys' gate-level Verilog)."""

    path: str
    text: str


def script(ctx: StageContext) -> str:
    return synth_script(ctx.sources(), ctx.top, ctx.params, f" -I{ctx.src_dir()}")


def synth_script(sources: list[str], top: str, params: Mapping[str, str], include: str = "") -> str:
    chparam = "".join(f" -chparam {k} {v}" for k, v in params.items())
    return (f"read_verilog -sv{include} {' '.join(sources)}\n"
            f"hierarchy -check -top {top}{chparam}\n"
            f"synth -top {top} -flatten\n"
            f"write_verilog -noattr {NETLIST}\n")  # what the netlist_sim stage simulates


class GenericSynthesisStage:
    id = StageId.SYNTHESIS
    inputs = ("canonical/canonical.v",)
    outputs = ("synth.ys", NETLIST)
    config = ("top", "limits.tool_timeout_s", "limits.tool_mem_mb")

    def skip_reason(self, ctx: StageContext) -> str | None:
        return None

    def plan(self, ctx: StageContext) -> Plan:
        inv = Invocation("yosys", ("yosys", "-q", "-s", "synth.ys"), outputs=(NETLIST,), crash_is_data=True,
                         files={"synth.ys": script(ctx), **ctx.data_files()})
        run = yield from call(inv)
        res = run.result
        if res.signal_name and not res.limited:
            why = yield from blame(ctx, inv, "synth.ys", synth_script, ctx.data_files())
            return failed(self.id, f"yosys synthesis failed: {res.describe()}: {why}")
        if res.timed_out:
            return failed(self.id, f"yosys timed out after {ctx.tool_timeout:g} s (design too large?)")
        if not res.ok:
            err = ERROR.search(clip(run.text()))
            msg = strip_paths(err.group(1) + err.group(2)) if err else res.describe()
            return failed(self.id, f"yosys synthesis failed: {msg}")
        res_ok = passed(self.id, "synthesizes (yosys synth)")
        text = run.outputs.get(NETLIST)
        return res_ok if text is None else replace(res_ok, value=GenericNetlist(ctx.own(NETLIST), text))
