"""Gate 4, simulation: the configured checks, cheapest first, stopping at the first failure.

1. differential test against the golden side (``sim.difftb``; Icarus, seeded, every output every cycle);
2. a self-checking Verilog testbench judged by ``pass_regex`` / ``fail_regex``;
3. the benchmark's cocotb module (``sim.cocotb_run``; Icarus by default, Verilator selectable).
Every simulator run has the wall-clock ``verification.timeout_s``; a killed run fails the gate.
"""

from __future__ import annotations

import hashlib
import re
import time
from pathlib import Path

from ..sim.cocotb_run import run_cocotb
from ..sim.difftb import TbPort, TbSpec, differential_tb, write_stimulus
from .context import GateContext, checked_params
from .golden import write_golden
from .result import GateResult, failed, passed, short
from .tooling import run, strip_paths

MISMATCH = re.compile(r"HH_MISMATCH_(\w+) cycle=(\d+) port=(\w+) expected=(\S+) got=(\S+) inputs: ?(.*)")


def _compile_and_run(ctx: GateContext, stage: Path, files: list[Path], tag: str,
                     extra: list[str] | None = None) -> tuple[str | None, str]:
    """(error, simulator stdout). A compile error, crash or timeout is an error string."""
    vvp_file = stage / f"{tag}.vvp"
    argv = ["iverilog", "-g2012", "-o", str(vvp_file), f"-I{ctx.src_dir}", *(extra or []), *map(str, files)]
    res = run(ctx, argv, name=f"iverilog-{tag}", stage=stage)
    if not res.ok:
        text = strip_paths(res.stderr + "\n" + res.stdout).strip()
        return f"{tag} testbench does not compile: {text.splitlines()[0] if text else res.describe()}", ""
    sim = run(ctx, ["vvp", "-n", str(vvp_file)], name=f"vvp-{tag}", stage=stage, timeout_s=ctx.sim_timeout)
    if sim.timed_out:
        return f"{tag} simulation killed at the {ctx.sim_timeout:g} s wall-clock timeout (the design hangs the simulator)", sim.stdout
    if sim.output_limited:
        return f"{tag} simulation stopped: output exceeded the limit", sim.stdout
    return None, sim.stdout


def differential(ctx: GateContext, stage: Path) -> tuple[str | None, dict]:
    assert ctx.golden is not None
    vcfg = ctx.design.verification.differential
    iface = ctx.design.interface
    gold_src, gold_top = write_golden(ctx.golden, stage / "golden")
    token = hashlib.sha256(f"{ctx.cand.digest}:{vcfg.seed}".encode()).hexdigest()[:12]
    ports = [TbPort(p.name, p.dir, p.width) for p in iface.all_ports() if p.dir in ("input", "output")]
    spec = TbSpec(ports=ports, clock=iface.clock, reset=iface.reset.name if iface.reset else None,
                  reset_active_low=bool(iface.reset and iface.reset.active == "low"),
                  cycles=vcfg.cycles, seed=vcfg.seed, token=token,
                  compare_when=tuple(sorted(ctx.design.verification.equivalence.compare_when.items())))
    write_stimulus(spec, stage)
    ctx.stage_inputs(stage)
    tb = stage / "hh_diff_tb.v"
    tb.write_text(differential_tb(spec, ctx.top, gold_top, ctx.params, checked_params(ctx.golden)), encoding="utf-8")
    err, out = _compile_and_run(ctx, stage, [tb, *ctx.sources(), *gold_src], "differential",
                                ["-s", "hh_diff_tb", f"-I{stage / 'golden'}"])
    info: dict = {"cycles": vcfg.cycles, "seed": vcfg.seed}
    if err:
        return err, info
    for m in MISMATCH.finditer(out):
        if m.group(1) != token:
            continue
        mism = {"cycle": int(m.group(2)), "port": m.group(3), "expected": m.group(4), "got": m.group(5),
                "inputs": m.group(6).strip()}
        return (f"differential test: cycle {mism['cycle']}: output `{mism['port']}` expected {mism['expected']}, "
                f"got {mism['got']} (inputs {mism['inputs']}; seed {vcfg.seed})"), {**info, "mismatch": mism}
    if f"HH_PASS_{token}" not in out:
        return "differential test: the simulation ended before all cycles ran ($finish or $stop in the design?)", info
    return None, info


def testbench(ctx: GateContext, stage: Path) -> tuple[str | None, dict]:
    v = ctx.design.verification
    assert v.testbench is not None
    ctx.stage_inputs(stage)
    defparams = stage / "hh_defparams.v"
    extra: list[Path] = []
    if ctx.params:
        # -P only reaches root modules; the candidate sits under the testbench, so defparam it there
        from .rtl_ast import instance_paths
        paths = instance_paths([v.testbench, *ctx.sources()], ctx.top)
        body = "".join(f"  defparam {path}.{k} = {val};\n" for path in paths for k, val in ctx.params.items())
        defparams.write_text(f"module hh_defparams;\n{body}endmodule\n", encoding="utf-8")
        extra.append(defparams)
    err, out = _compile_and_run(ctx, stage, [v.testbench, *ctx.sources(), *extra], "testbench")
    if err:
        return err, {}
    if v.fail_regex:
        m = re.search(v.fail_regex, out)
        if m:
            line = out[out.rfind("\n", 0, m.start()) + 1 : (out.find("\n", m.end()) + 1 or len(out) + 1) - 1]
            return f"testbench reported a failure: {line.strip()}", {}
    if not re.search(v.pass_regex, out):
        tail = [ln for ln in out.splitlines() if ln.strip()][-1:] or ["no output"]
        return f"testbench did not print the pass pattern /{v.pass_regex}/ (last line: {tail[0].strip()})", {}
    return None, {}


def cocotb(ctx: GateContext, stage: Path) -> tuple[str | None, dict]:
    v = ctx.design.verification
    assert v.cocotb is not None and v.test_dir is not None
    build = stage / "cocotb"
    out = run_cocotb(sources=ctx.sources(), toplevel=ctx.top, test_module=v.cocotb, test_dir=v.test_dir,
                     build_dir=build, timeout_s=ctx.sim_timeout, simulator=v.simulator, params=ctx.params,
                     seed=v.differential.seed, mem_mb=ctx.mem_mb, sandbox=ctx.sandbox)
    info = {"tests": out.tests, "failures": out.failures, "simulator": v.simulator, "timed_out": out.timed_out}
    if not out.passed:
        return f"cocotb {v.cocotb}: {strip_paths(out.message)}", info
    return None, info


def check_simulation(ctx: GateContext, stage: Path) -> GateResult:
    t0 = time.monotonic()
    v = ctx.design.verification
    checks = []
    if ctx.golden is not None and v.differential.enabled:
        checks.append(("differential", differential))
    if v.testbench is not None:
        checks.append(("testbench", testbench))
    if v.cocotb is not None:
        checks.append(("cocotb", cocotb))
    details: dict = {"checks": [name for name, _ in checks]}
    for name, fn in checks:
        sub = stage / name
        sub.mkdir(parents=True, exist_ok=True)
        err, info = fn(ctx, sub)
        details[name] = info
        if err:
            return failed("simulation", short(err), time.monotonic() - t0, failed_check=name, **details)
    return passed("simulation", f"{', '.join(details['checks'])} passed", time.monotonic() - t0, **details)
