"""Gate 4, simulation: the configured checks, cheapest first, stopping at the first failure.

1. differential test against the golden side (``sim.difftb``; Icarus, seeded, every output every cycle);
2. a self-checking Verilog testbench judged by ``pass_regex`` / ``fail_regex``;
3. the benchmark's cocotb module (``sim.cocotb_run``; Icarus by default, Verilator selectable).
Every simulator run has the wall-clock ``verification.timeout_s``; a killed run fails the gate.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Callable, Generator
from dataclasses import replace
from typing import NotRequired, TypedDict, final

from ..runner import ToolResult
from ..sim.cocotb_run import CocotbCase, icarus_flags
from ..sim.difftb import TbPort, TbSpec, clocking, differential_tb, stimulus_files
from ..stages.context import CANONICAL, GOLDEN, StageContext, checked_params
from ..stages.crash import FOLDER as CRASH_FOLDER
from ..stages.crash import KnownGood, blame_by, canary_sim, crashed, judged
from ..stages.golden import golden_files
from ..stages.model import CocotbRun, Invocation, Plan, Reply, Request, StageId, StageResult, call, cocotb, short
from ..stages.vetted import Vetted
from .compile import CocotbImage
from .tooling import strip_paths

MISMATCH = re.compile(r"HH_MISMATCH_(\w+) cycle=(\d+) port=(\w+) expected=(\S+) got=(\S+) inputs: ?(.*)")
UNREADABLE = re.compile(r"\$readmem[hb]: Unable to open")  # Icarus' words for a data file not beside the bench


@final
class Mismatch(TypedDict):
    """The first output the differential test saw differ: its cycle, port, both values, the inputs then."""

    cycle: int
    port: str
    expected: str
    got: str
    inputs: str


@final
class DiffInfo(TypedDict):
    """The differential check's details: its cycles and seed, and its mismatch when it failed on one."""

    cycles: int
    seed: int
    mismatch: NotRequired[Mismatch]


@final
class TestbenchInfo(TypedDict):
    """The testbench check records nothing beyond its verdict."""


@final
class CocotbInfo(TypedDict):
    """The cocotb check's details: counts, simulator, whether it timed out, and each test by name."""

    tests: int
    failures: int
    simulator: str
    timed_out: bool
    cases: list[CocotbCase]


CheckInfo = DiffInfo | TestbenchInfo | CocotbInfo
Check = Generator[Request, Reply, tuple[str | None, CheckInfo]]


# (files relative to the bench's folder, sources relative to it, extra iverilog flags) of a bench around a design:
# the candidate (None) or a known-good design in its place (``stages.crash``), laid out for the folder named
Bench = Callable[[str, KnownGood | None], tuple[dict[str, str], list[str], list[str]]]


def _build_and_sim(ctx: StageContext, name: str, folder: str, files: dict[str, str], sources: list[str],
                   extra: list[str]) -> Generator[Request, Reply, tuple[ToolResult, ToolResult | None]]:
    """Icarus' compile of a bench in ``folder`` (``files`` relative to it), then vvp on it when it compiled.
    A crash of either is data here: whose fault it is, ``stages.crash`` decides."""
    argv = ("iverilog", "-g2012", "-o", f"{name}.vvp", f"-I{ctx.src_dir(folder)}", *extra, *sources)
    comp = (yield from call(Invocation(f"iverilog-{name}", argv, cwd=folder, crash_is_data=True,
                                       files={posixpath.join(folder, k): v for k, v in files.items()}))).result
    if not comp.ok:
        return comp, None
    sim = (yield from call(Invocation(f"vvp-{name}", ("vvp", "-n", f"{name}.vvp"), cwd=folder,
                                      timeout_s=ctx.sim_timeout, crash_is_data=True))).result
    return comp, sim


def bench_crash(ctx: StageContext, tag: str, bench: Bench) -> Generator[Request, Reply, str]:
    """After Icarus crashed on the candidate's bench ``tag``: the same bench, the known-good design in the candidate's
    place (the canary and a bench of its own when there is no reference), in ``known-good/<tag>``. The failed
    gate's sentence, or ToolError when that crashes too."""

    def rerun(good: KnownGood) -> Generator[Request, Reply, tuple[str | None, bool]]:
        if good.canary:
            return judged((yield from canary_sim(good, ctx.sim_timeout)))
        files, sources, extra = bench(good.folder, good)
        local = {posixpath.relpath(k, good.folder): v for k, v in good.files.items()}
        comp, sim = yield from _build_and_sim(ctx, f"{tag}-known-good", good.folder, {**local, **files}, sources,
                                              extra)
        return judged(comp if sim is None else sim)

    return (yield from blame_by(ctx, rerun, "bench", in_place=True, folder=f"{CRASH_FOLDER}/{tag}"))


def _compile_and_run(ctx: StageContext, tag: str, bench: Bench) -> Generator[Request, Reply, tuple[str | None, str]]:
    """(error, simulator stdout) of a bench compiled and run in the subfolder ``tag``. A compile error,
    crash or timeout is an error string (a crash on the known-good design too: ToolError)."""
    files, sources, extra = bench(tag, None)
    comp, sim = yield from _build_and_sim(ctx, tag, tag, files, sources, extra)
    crash = comp if crashed(comp) else sim if sim is not None and crashed(sim) else None
    if crash is not None:
        why = yield from bench_crash(ctx, tag, bench)
        step = "testbench compile" if crash is comp else "simulation"
        return f"{tag} {step}: {crash.describe()}: {why}", ""
    if sim is None:
        text = strip_paths(comp.stderr + "\n" + comp.stdout).strip()
        return f"{tag} testbench does not compile: {text.splitlines()[0] if text else comp.describe()}", ""
    if sim.timed_out:
        return (f"{tag} simulation killed at the {ctx.sim_timeout:g} s wall-clock timeout (the design hangs the "
                "simulator)"), sim.stdout
    if sim.output_limited:
        return f"{tag} simulation stopped: output exceeded the limit", sim.stdout
    return None, sim.stdout


def differential(ctx: StageContext) -> Check:
    golden = ctx.value(StageId.SAFETY, Vetted).golden
    assert golden is not None
    vcfg = ctx.design.verification.differential
    iface = ctx.design.interface
    gfiles, gsrc, gold_top = golden_files(golden, "golden")
    token = hashlib.sha256(f"{ctx.cand.digest}:{vcfg.seed}".encode()).hexdigest()[:12]
    ports = [TbPort(p.name, p.dir, p.width) for p in iface.all_ports() if p.dir in ("input", "output")]
    spec = TbSpec(ports=ports, clock=iface.clock, reset=iface.reset.name if iface.reset else None,
                  reset_active_low=bool(iface.reset and iface.reset.active == "low"),
                  cycles=vcfg.cycles, seed=vcfg.seed, token=token,
                  compare_when=tuple(sorted(ctx.design.verification.equivalence.compare_when.items())),
                  **clocking(iface, ctx.design.ppa.clock_period_ns))

    def bench(folder: str, good: KnownGood | None) -> tuple[dict[str, str], list[str], list[str]]:
        dut, params, data = ((ctx.sources(folder), ctx.params, ctx.data_files()) if good is None
                             else (good.sources, good.params, {}))  # a known-good design's data: its own files
        text = differential_tb(spec, ctx.top, gold_top, dict(params), checked_params(golden))
        local = {**gfiles, **stimulus_files(spec), **data, "hh_diff_tb.v": text}
        return local, ["hh_diff_tb.v", *dut, *gsrc], ["-s", "hh_diff_tb", "-Igolden"]

    err, out = yield from _compile_and_run(ctx, "differential", bench)
    info: DiffInfo = {"cycles": vcfg.cycles, "seed": vcfg.seed}
    if err:
        return err, info
    for m in MISMATCH.finditer(out):
        if m.group(1) != token:
            continue
        mism: Mismatch = {"cycle": int(m.group(2)), "port": m.group(3), "expected": m.group(4), "got": m.group(5),
                          "inputs": m.group(6).strip()}
        info["mismatch"] = mism
        return (f"differential test: cycle {mism['cycle']}: output `{mism['port']}` expected {mism['expected']}, "
                f"got {mism['got']} (inputs {mism['inputs']}; seed {vcfg.seed})"), info
    if f"HH_PASS_{token}" not in out:
        return "differential test: the simulation ended before all cycles ran ($finish or $stop in the design?)", info
    return None, info


def testbench(ctx: StageContext) -> Check:
    v = ctx.design.verification
    assert v.testbench is not None
    tb = v.testbench
    # the bench's own data (verification.data_files) under the relative names it opens them by
    own = {name: p.read_bytes().decode("utf-8", "surrogateescape") for name, p in v.data_files.items()}

    def bench(folder: str, good: KnownGood | None) -> tuple[dict[str, str], list[str], list[str]]:
        files = {**(ctx.data_files() if good is None else {}), **own}
        dut, params, text = ((ctx.sources(folder), ctx.params, ctx.root / CANONICAL) if good is None
                             else (good.sources, good.params, ctx.root / GOLDEN / CANONICAL))
        extra: list[str] = []
        if params:
            # -P only reaches root modules; the design sits under the testbench, so defparam it there
            from ..hdl.elaborate import instance_paths

            paths = instance_paths([tb, text], ctx.top)
            body = "".join(f"  defparam {path}.{k} = {val};\n" for path in paths for k, val in params.items())
            files["hh_defparams.v"] = f"module hh_defparams;\n{body}endmodule\n"
            extra.append("hh_defparams.v")
        return files, [str(tb), *dut, *extra], []

    err, out = yield from _compile_and_run(ctx, "testbench", bench)
    if err:
        return err, TestbenchInfo()
    if v.fail_regex:
        m = re.search(v.fail_regex, out)
        if m:
            line = out[out.rfind("\n", 0, m.start()) + 1 : (out.find("\n", m.end()) + 1 or len(out) + 1) - 1]
            hint = " (declare it in verification.data_files)" if UNREADABLE.search(line) else ""
            return f"testbench reported a failure: {line.strip()}{hint}", TestbenchInfo()
    if not re.search(v.pass_regex, out):
        tail = [ln for ln in out.splitlines() if ln.strip()][-1:] or ["no output"]
        return (f"testbench did not print the pass pattern /{v.pass_regex}/ (last line: {tail[0].strip()})",
                TestbenchInfo())
    return None, TestbenchInfo()


def _compiled_image(ctx: StageContext) -> str | None:
    """The compile stage's Icarus image when it is the one cocotb's Icarus build would make (same canonical text,
    same flags), relative to this stage's folder; else None (cocotb builds its own)."""
    done = ctx.results.get(StageId.COMPILE)
    image = done.value if done is not None and done.passed else None
    if ctx.design.verification.simulator != "icarus" or not isinstance(image, CocotbImage):
        return None
    return ctx.rel(image.path) if image.flags == icarus_flags(ctx.top, ctx.params) else None


def cocotb_crash(ctx: StageContext, run: CocotbRun) -> Generator[Request, Reply, str]:
    """After cocotb's simulator crashed on the candidate (``run``): the same cocotb test with the known-good design
    in the candidate's place (the canary and a bench of its own when there is no reference), in
    ``known-good/cocotb``. The failed gate's sentence, or ToolError when that crashes too."""

    def rerun(good: KnownGood) -> Generator[Request, Reply, tuple[str | None, bool]]:
        if good.canary:
            return judged((yield from canary_sim(good, ctx.sim_timeout)))
        out = yield from cocotb(replace(run, sources=tuple(posixpath.normpath(posixpath.join(good.folder, s))
                                                           for s in good.sources),
                                        toplevel=good.top, params=good.params, build_dir=good.folder, image=None))
        return out.crash, out.passed

    return (yield from blame_by(ctx, rerun, "cocotb test", in_place=True, folder=f"{CRASH_FOLDER}/cocotb"))


def cocotb_check(ctx: StageContext) -> Check:
    v = ctx.design.verification
    assert v.cocotb is not None and v.test_dir is not None
    run = CocotbRun(sources=tuple(ctx.sources()), toplevel=ctx.top, test_module=v.cocotb, test_dir=v.test_dir,
                    build_dir="cocotb", timeout_s=ctx.sim_timeout, simulator=v.simulator, params=ctx.params,
                    seed=v.differential.seed, image=_compiled_image(ctx))
    out = yield from cocotb(run)
    info: CocotbInfo = {"tests": out.tests, "failures": out.failures, "simulator": v.simulator,
                        "timed_out": out.timed_out, "cases": [CocotbCase(**c) for c in out.cases]}
    if not out.passed and out.crash:
        why = yield from cocotb_crash(ctx, run)
        return f"cocotb {v.cocotb}: {strip_paths(out.crash)}: {why}", info
    if not out.passed:
        msg = strip_paths(out.message)
        each = ", ".join(f"{c['name']} {'FAILED' if c['result'] == 'failed' else c['result']}" for c in out.cases)
        if each and "; " in msg:  # "1/2 cocotb tests failed (a FAILED, b passed); a: <its assertion>"
            head, tail = msg.split("; ", 1)
            msg = f"{head} ({each}); {tail}"
        return f"cocotb {v.cocotb}: {msg}", info
    return None, info


def _cocotb_names(info: CheckInfo | None) -> str:
    """`` (cocotb: 2 tests, a passed, b passed)``: each cocotb test by name, as cocotb's own summary has them."""
    cases: list[CocotbCase] = info["cases"] if info is not None and "cases" in info else []
    if not cases:
        return ""
    return f" (cocotb: {len(cases)} tests, " + ", ".join(f"{c['name']} {c['result']}" for c in cases) + ")"


class SimulationStage:
    """The configured checks, cheapest first, stopping at the first failure: the differential test
    against the golden side (``sim.difftb``; Icarus, seeded, every output every cycle), a self-checking
    Verilog testbench judged by ``pass_regex``/``fail_regex``, the design's cocotb module (``sim.cocotb_run``).
    Every simulator run has the wall-clock ``verification.timeout_s``; a killed run fails the stage."""

    id = StageId.SIMULATION
    inputs = ("canonical/canonical.v", "golden/canonical/canonical.v")
    outputs = ("differential/", "testbench/", "cocotb/")
    config = ("verification", "interface", "limits.tool_timeout_s")

    def skip_reason(self, ctx: StageContext) -> str | None:
        v = ctx.design.verification
        if not (v.cocotb or v.testbench or (ctx.golden is not None and v.differential.enabled)):
            return "no simulation check configured"
        return None

    def plan(self, ctx: StageContext) -> Plan:
        v = ctx.design.verification
        checks = []
        if ctx.golden is not None and v.differential.enabled:
            checks.append(("differential", differential))
        if v.testbench is not None:
            checks.append(("testbench", testbench))
        if v.cocotb is not None:
            checks.append(("cocotb", cocotb_check))
        names = [name for name, _ in checks]
        done: dict[str, CheckInfo] = {}  # each check's details under its name, after the list of checks
        for name, check in checks:
            err, info = yield from check(ctx)
            done[name] = info
            if err:
                return StageResult(self.id, False, short(err), {"failed_check": name, "checks": names, **done})
        return StageResult(self.id, True, short(f"{', '.join(names)} passed{_cocotb_names(done.get('cocotb'))}"),
                           {"checks": names, **done})
