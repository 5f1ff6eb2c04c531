"""Gate 5, equivalence: Yosys' built-in SAT on a miter of golden and candidate.

Combinational interfaces get a full proof (``sat -prove-asserts``). Sequential ones get a bounded
proof from reset: ``async2sync``, free (unconstrained, independent) initial state, reset asserted
in step 1, every output compared in steps 2..depth (``-seq depth -prove-skip 1``); so a register
the candidate forgets to reset is found. Without a declared reset both sides start from zero.
Golden X bits are don't-care (``miter -ignore_gold_x``). A solver timeout is inconclusive and
fails the gate (correct first). The counterexample is reported as input values per step.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from .context import GateContext, checked_params
from .golden import write_golden
from .result import GateResult, failed, passed
from .tooling import rel, run, strip_paths

ROW = re.compile(r"^\s*(\d+|init)?\s*\\(in|gold|gate)_([A-Za-z0-9_$]+)\s+(-?\d+|--)\s+([0-9a-fA-Fx-]+)\s+([01xz-]+)\s*$", re.M)
ERROR = re.compile(r"^ERROR: (.*)$", re.M)


def _script(ctx: GateContext, stage: Path, gold_src: list[Path], gold_top: str) -> Path:
    iface = ctx.design.interface
    eq = ctx.design.verification.equivalence
    lines = [f"read_verilog -sv -I{rel(stage / 'golden', stage)} " + " ".join(rel(p, stage) for p in gold_src),
             f"read_verilog -sv -I{rel(ctx.src_dir, stage)} " + " ".join(rel(p, stage) for p in ctx.sources())]
    assert ctx.golden is not None
    for k, v in ctx.params.items():
        lines.append(f"chparam -set {k} {v} {ctx.top}")
    for k, v in checked_params(ctx.golden).items():
        lines.append(f"chparam -set {k} {v} {gold_top}")
    # opt before the miter canonicalises both sides (constant and duplicate bits, widened registers);
    # opt on the miter then merges logic the two sides share, so structurally equal parts (a
    # multiplier, a CRC tree) cancel out instead of being left to the SAT solver.
    lines += [f"hierarchy -check", "proc", "flatten", "memory", "async2sync", "opt -full", "wreduce", "opt_clean",
              f"miter -equiv -flatten -make_assert -make_outputs -ignore_gold_x {gold_top} {ctx.top} hh_miter",
              "hierarchy -top hh_miter", "opt -full", "opt_clean"]
    sat = f"sat -prove-asserts -show-inputs -show-outputs -timeout {int(max(1, eq.timeout_s))}"
    if iface.sequential:
        sat += f" -seq {eq.depth}"
        if iface.reset:
            active = 0 if iface.reset.active == "low" else 1
            sat += f" -set-at 1 in_{iface.reset.name} {active} -prove-skip 1"
        else:
            sat += " -set-init-zero"
    lines.append(sat + " hh_miter")
    script = stage / "equivalence.ys"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return script


def counterexample(text: str) -> list[dict]:
    """Per step: {"step", "inputs": {port: hex}, "gold": {...}, "gate": {...}}."""
    steps: dict[str, dict] = {}
    for step, side, port, _dec, hexv, _bin in ROW.findall(text):
        if step == "init":
            continue
        key = step or "1"
        row = steps.setdefault(key, {"step": int(key), "inputs": {}, "gold": {}, "gate": {}})
        row["inputs" if side == "in" else side][port] = hexv
    return [steps[k] for k in sorted(steps, key=int)]


def _describe(cex: list[dict], ctx: GateContext) -> str:
    clock = ctx.design.interface.clock
    for row in cex:
        for port, want in row["gold"].items():
            got = row["gate"].get(port)
            if port == "trigger" or got is None or got == want or "x" in want or "-" in want:
                continue
            inputs = " ".join(f"{k}=0x{v}" for k, v in row["inputs"].items() if k != clock)
            if ctx.design.interface.sequential:
                history = "; ".join(" ".join(f"{k}=0x{v}" for k, v in r["inputs"].items() if k != clock)
                                    for r in cex if r["step"] <= row["step"])
                return (f"not equivalent: step {row['step']} after reset: output `{port}` reference 0x{want}, "
                        f"candidate 0x{got} (inputs per step: {history})")
            return f"not equivalent: inputs {inputs}: output `{port}` reference 0x{want}, candidate 0x{got}"
    return "not equivalent (counterexample found; see the log)"


def check_equivalence(ctx: GateContext, stage: Path) -> GateResult:
    t0 = time.monotonic()
    assert ctx.golden is not None
    eq = ctx.design.verification.equivalence
    gold_src, gold_top = write_golden(ctx.golden, stage / "golden")
    ctx.stage_inputs(stage)
    script = _script(ctx, stage, gold_src, gold_top)
    res = run(ctx, ["yosys", "-s", str(script)], name="yosys-equiv", stage=stage, timeout_s=eq.timeout_s + 30)
    text = res.stdout
    mode = f"bounded, {eq.depth} steps from reset" if ctx.design.interface.sequential else "full proof"
    details: dict = {"mode": mode}
    if res.timed_out or "TIMEOUT" in text:
        return failed("equivalence", f"equivalence check inconclusive: solver timeout after {eq.timeout_s:g} s",
                      time.monotonic() - t0, inconclusive=True, **details)
    if res.returncode != 0:
        err = ERROR.search(text + "\n" + res.stderr)
        return failed("equivalence", f"cannot build the miter: {strip_paths(err.group(1)) if err else res.describe()}",
                      time.monotonic() - t0, **details)
    if "SUCCESS!" in text:
        return passed("equivalence", f"equivalent to the reference ({mode})", time.monotonic() - t0, **details)
    if "FAIL!" in text:
        cex = counterexample(text)
        return failed("equivalence", _describe(cex, ctx), time.monotonic() - t0, counterexample=cex, **details)
    return failed("equivalence", "equivalence check gave no verdict (see the log)", time.monotonic() - t0, **details)
