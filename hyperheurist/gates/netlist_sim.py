"""The netlist_sim stage: the synthesized netlist, simulated beside the design's own RTL.

Yosys and Icarus can read one text as two circuits (a comparison with x, an incomplete sensitivity list,
a delay, a synthesis pragma): every RTL check passes on what Icarus runs while PPA scores what Yosys built.
This stage closes that gap. The netlist of the synthesis stage that ran before it (in ``hh run`` and
``hh ppa`` the one PPA scores, mapped onto the liberty and simulated with the liberty's Verilog cell
models; in ``hh gate`` Yosys' generic netlist, with Yosys' own cell models where it instantiates any) is
put in the differential bench (``sim.difftb``: the same seeded stimulus, every output every cycle) as the
candidate, and the design's own canonical RTL, renamed, as the golden side. The first output that
differs is the verdict: the cycle, the port, both values and the inputs.
No second synthesis: the netlist is the synthesis stage's. A failure to compile or run the netlist, or
the wall clock stopping it, is a tool fault, never a verdict; a simulator crash is the design's failed
stage unless the same bench crashes on the known-good design too (``stages.crash``).
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Generator
from pathlib import Path
from typing import NotRequired, TypedDict

from ..errors import ToolError
from ..hdl.rename import declared_names, prefix_names
from ..ppa.activity import cell_models
from ..ppa.synth import Synthesized
from ..sim.difftb import TbPort, TbSpec, clocking, differential_tb, stimulus_files
from ..sim.netbench import WRAPPER, generic_cells, port_wrapper, yosys_share
from ..stages.context import CANONICAL, GOLDEN, StageContext
from ..stages.crash import KnownGood, blame_by, canary_sim, crashed, judged
from ..stages.golden import PREFIX
from ..stages.model import CocotbRun, Invocation, Plan, Reply, Request, StageId, call, cocotb, failed, passed
from .simulation import MISMATCH, cocotb_crash
from .synthesis import GenericNetlist
from .tooling import strip_paths

RTL = "hh_rtl.v"  # the design's canonical text with its modules renamed (the golden side)
BENCH = "hh_diff_tb.v"


class NetlistMismatch(TypedDict):
    """The first output the netlist and its RTL disagree on: its cycle, port, both values, the inputs then."""

    cycle: int
    port: str
    rtl: str
    netlist: str
    inputs: str


class NetlistCocotb(TypedDict):
    """The design's cocotb tests run on the netlist: counts and how the run ended (``CocotbOutcome.kind``)."""

    tests: int
    failures: int
    kind: str


class NetlistInfo(TypedDict):
    """The stage's details: the bench's cycles and seed, the netlist and its cell models, and the cocotb run
    (or why it was not run)."""

    cycles: int
    seed: int
    netlist: str
    models: list[str]
    cocotb: NotRequired[NetlistCocotb | str]


HINT = ("the netlist Yosys builds does not behave as the RTL simulates (a comparison with x/z, an incomplete "
        "sensitivity list, a delay or a synthesis pragma?)")


def spec_of(ctx: StageContext, cycles: int, liberty: bool = False) -> TbSpec:
    """The differential bench's spec for this design, with ``cycles`` and a token of its own; ``liberty``: the
    netlist is mapped onto a liberty (whose flops have no power-on state)."""
    iface, vcfg = ctx.design.interface, ctx.design.verification.differential
    token = hashlib.sha256(f"{ctx.cand.digest}:{vcfg.seed}:netlist".encode()).hexdigest()[:12]
    ports = [TbPort(p.name, p.dir, p.width) for p in iface.all_ports() if p.dir in ("input", "output")]
    clk = clocking(iface, ctx.design.ppa.clock_period_ns)
    # FPGA-style power-on values: the RTL starts from them, an ASIC netlist from X (PPA ignores them, as documented):
    # compared after the reset, and an X of the liberty netlist is no mismatch (a 0/1 that differs still is)
    power_on = ctx.design.verification.initial == "power_on_values"
    return TbSpec(ports=ports, clock=iface.clock, reset=iface.reset.name if iface.reset else None,
                  reset_active_low=bool(iface.reset and iface.reset.active == "low"), cycles=cycles, seed=vcfg.seed,
                  token=token, compare_from=2 * clk["reset_hold"] if power_on and iface.reset else 0,
                  dut_x_ok=power_on and liberty,
                  compare_when=tuple(sorted(ctx.design.verification.equivalence.compare_when.items())), **clk)


def cycles_of(ctx: StageContext) -> int:
    v = ctx.design.verification
    return v.netlist_sim.cycles or v.differential.cycles


def _netlist(ctx: StageContext, spec: TbSpec) -> tuple[str, list[Path], dict[str, str], str]:
    """(the netlist, run-folder-relative; its cell models; a port wrapper's files; the module the bench
    instantiates) of the synthesis that ran."""
    value = ctx.results[StageId.SYNTHESIS].value
    if isinstance(value, Synthesized):
        assert ctx.liberty is not None
        ports = value.modules[ctx.top].ports if ctx.top in value.modules else {}
        split = {p.name for p in spec.ports if p.width > 1 and p.name not in ports and f"{p.name}[0]" in ports}
        if not split:
            return value.netlist, [cell_models(ctx.liberty)], {}, ctx.top
        return value.netlist, [cell_models(ctx.liberty)], {"hh_netlist_wrap.v": port_wrapper(spec.ports, ctx.top,
                                                                                             split)}, WRAPPER
    if isinstance(value, GenericNetlist):
        from ..tools import tool_path

        try:
            models = generic_cells(value.text, yosys_share(Path(tool_path("yosys"))))
        except FileNotFoundError:
            raise ToolError("netlist_sim: the generic netlist instantiates Yosys' internal cells, and their models "
                            "(simcells.v) are not found beside the yosys binary or in /usr/share/yosys") from None
        return value.path, models, {}, ctx.top
    raise ToolError(f"netlist_sim: the synthesis stage left no netlist ({type(value).__name__})")


def _mismatch(out: str, token: str, seed: int) -> tuple[str, NetlistMismatch] | None:
    for m in MISMATCH.finditer(out):
        if m.group(1) == token:
            mism: NetlistMismatch = {"cycle": int(m.group(2)), "port": m.group(3), "rtl": m.group(4),
                                     "netlist": m.group(5), "inputs": m.group(6).strip()}
            msg = (f"netlist simulation: cycle {mism['cycle']}: output `{mism['port']}` is {mism['rtl']} in the RTL, "
                   f"{mism['netlist']} in the synthesized netlist (inputs {mism['inputs']}; seed {seed}): {HINT}")
            return msg, mism
    return None


def _known_good_run(ctx: StageContext, spec: TbSpec, models: list[Path], readable: tuple[Path, ...],
                    good: KnownGood) -> Generator[Request, Reply, tuple[str | None, bool]]:
    """The netlist bench with the known-good design on both sides (the reference's canonical text in the netlist's
    place, and renamed as the RTL side), the same cell models beside it: the re-run ``stages.crash`` judges by."""
    if good.canary:
        return judged((yield from canary_sim(good, ctx.sim_timeout)))
    text = (ctx.root / GOLDEN / CANONICAL).read_text(encoding="utf-8", errors="surrogateescape")
    rtl = prefix_names(text, set(declared_names(text)), PREFIX)
    bench = differential_tb(spec, good.top, PREFIX + good.top, dict(good.params), dict(good.params))
    here = {RTL: rtl, BENCH: bench, **stimulus_files(spec)}
    files = {**good.files, **{posixpath.join(good.folder, k): t for k, t in here.items()}}
    argv = ("iverilog", "-g2012", "-o", "known-good.vvp", "-s", "hh_diff_tb", f"-I{ctx.src_dir(good.folder)}", BENCH,
            *good.sources, *(str(m) for m in models), RTL)
    comp = (yield from call(Invocation("iverilog-netlist-known-good", argv, files=files, cwd=good.folder,
                                       readable=readable, crash_is_data=True))).result
    if not comp.ok:
        return judged(comp)
    return judged((yield from call(Invocation("vvp-netlist-known-good", ("vvp", "-n", "known-good.vvp"),
                                              cwd=good.folder, timeout_s=ctx.sim_timeout, crash_is_data=True))).result)


def _cocotb_on_netlist(ctx: StageContext, sources: tuple[str, ...], dut: str,
                       info: NetlistInfo) -> Generator[Request, Reply, str | None]:
    """The design's cocotb tests on the netlist (``sources``: it, its models' copies, the port wrapper);
    None when they pass, else the verdict's message."""
    v = ctx.design.verification
    assert v.cocotb is not None and v.test_dir is not None
    run = CocotbRun(sources=sources, toplevel=dut, test_module=v.cocotb, test_dir=v.test_dir, build_dir="cocotb",
                    timeout_s=ctx.sim_timeout, simulator="icarus", params={}, seed=v.differential.seed)
    out = yield from cocotb(run)
    info["cocotb"] = {"tests": out.tests, "failures": out.failures, "kind": out.kind}
    if not out.passed and out.crash:
        why = yield from cocotb_crash(ctx, run)
        return f"cocotb {v.cocotb} on the synthesized netlist: {strip_paths(out.crash)}: {why}"
    if out.timed_out or out.kind in ("build", "no_results"):
        raise ToolError(f"netlist_sim: cocotb {v.cocotb} on the synthesized netlist did not run: "
                        f"{strip_paths(out.message)}")
    return None if out.passed else f"cocotb {v.cocotb} on the synthesized netlist: {strip_paths(out.message)}"


class NetlistSimStage:
    """The synthesis stage's netlist in the differential bench, the design's own RTL as the golden side."""

    id = StageId.NETLIST_SIM
    inputs = ("canonical/canonical.v", "synthesis netlist.v")
    outputs = (BENCH, RTL)
    config = ("verification.netlist_sim", "verification.differential", "verification.initial", "interface",
              "ppa.liberty", "verification.timeout_s")

    def skip_reason(self, ctx: StageContext) -> str | None:
        if not ctx.design.verification.netlist_sim.enabled:
            return "verification.netlist_sim.enabled is off"
        syn = ctx.results.get(StageId.SYNTHESIS)
        if syn is None:
            return "no synthesis ran (no netlist to simulate)"
        if syn.skipped:  # a PPA cache hit: this RTL and recipe were estimated, and their netlist simulated, before
            return "reused: this netlist was simulated when this RTL and recipe were estimated (PPA cache)"
        lib = ctx.liberty if isinstance(syn.value, Synthesized) else None
        models = Path(lib.path).with_suffix(".v") if lib is not None else None
        if models is not None and not models.is_file():  # a user's .lib without its Verilog models: said, not hidden
            return f"not simulated: no Verilog cell models beside the liberty ({models.name} not found)"
        return None

    def plan(self, ctx: StageContext) -> Plan:
        spec = spec_of(ctx, cycles_of(ctx), isinstance(ctx.results[StageId.SYNTHESIS].value, Synthesized))
        netlist, models, wrap, dut = _netlist(ctx, spec)
        text = (ctx.root / CANONICAL).read_text(encoding="utf-8", errors="surrogateescape")
        rtl = prefix_names(text, set(declared_names(text)), PREFIX)
        bench = differential_tb(spec, dut, PREFIX + ctx.top, {}, ctx.params)
        v = ctx.design.verification
        mode = v.netlist_sim.cocotb  # gate: on hh gate's (and hh audit's) netlist; always: on every scored one too
        generic = isinstance(ctx.results[StageId.SYNTHESIS].value, GenericNetlist)
        wanted = v.cocotb is not None and (mode == "always" or (mode == "gate" and generic))
        with_cocotb = wanted and v.simulator == "icarus"
        # cocotb's build reads its sources from the run folder: the cell models are copied there for it
        copies = {f"cells/{m.name}": m.read_text(encoding="utf-8", errors="surrogateescape")
                  for m in models} if with_cocotb else {}
        files = {**stimulus_files(spec), **ctx.data_files(), **wrap, **copies, RTL: rtl, BENCH: bench}
        argv = ("iverilog", "-g2012", "-o", "netlist_sim.vvp", "-s", "hh_diff_tb", f"-I{ctx.src_dir()}", BENCH,
                *wrap, ctx.rel(netlist), *(str(m) for m in models), RTL)
        readable = tuple(dict.fromkeys(m.parent for m in models))
        res = (yield from call(Invocation("iverilog-netlist", argv, files=files, readable=readable,
                                          crash_is_data=True))).result
        sim = None
        if res.ok:
            sim = (yield from call(Invocation("vvp-netlist", ("vvp", "-n", "netlist_sim.vvp"),
                                              timeout_s=ctx.sim_timeout, crash_is_data=True))).result
        crash = res if crashed(res) else sim if sim is not None and crashed(sim) else None
        if crash is not None:  # the design's doing unless the same bench crashes on the known-good design too
            why = yield from blame_by(ctx, lambda good: _known_good_run(ctx, spec, models, readable, good), "bench",
                                      in_place=True)
            return failed(self.id, f"netlist simulation: {crash.describe()}: {why}")
        if sim is None:
            lines = strip_paths(res.stderr + "\n" + res.stdout).strip().splitlines()
            errors = [ln for ln in lines if "error" in ln.lower()] or lines
            fitting = next((ln for ln in errors if ln.startswith((BENCH, RTL))), None)
            if fitting is not None:  # the bench is built from `interface`: hh ppa reaches here with no port check
                return failed(self.id, f"the design does not fit its declared interface: {fitting}")
            raise ToolError(f"netlist_sim: the netlist and its RTL do not compile together: "
                            f"{errors[0] if errors else res.describe()} (see {ctx.root / ctx.here})")
        if sim.timed_out or sim.output_limited:
            raise ToolError(f"netlist_sim: the netlist simulation was stopped ({sim.describe()}; "
                            f"verification.timeout_s {ctx.sim_timeout:g} s)")
        info: NetlistInfo = {"cycles": spec.cycles, "seed": spec.seed, "netlist": ctx.rel(netlist),
                             "models": [m.name for m in models]}
        bad = _mismatch(sim.stdout, spec.token, spec.seed)
        if bad is not None:
            return failed(self.id, bad[0], **info, mismatch=bad[1])
        if f"HH_PASS_{spec.token}" not in sim.stdout:
            return failed(self.id, "netlist simulation ended before all cycles ran ($finish or $stop in the "
                                   "design?)", **info)
        if not with_cocotb:
            if wanted:  # the cell models are simulated with Icarus only
                info["cocotb"] = "not run: verification.simulator is not icarus"
            return passed(self.id, f"the synthesized netlist matches the RTL for {spec.cycles} cycles", **info)
        err = yield from _cocotb_on_netlist(ctx, (ctx.rel(netlist), *copies, *wrap), dut, info)
        if err:
            return failed(self.id, err, **info)
        return passed(self.id, f"the synthesized netlist matches the RTL for {spec.cycles} cycles and passes "
                               f"cocotb {v.cocotb}", **info)
