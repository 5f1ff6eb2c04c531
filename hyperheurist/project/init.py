"""``hh init --top TOP (-f FILELIST | FILES...) [--golden DIR | --cocotb MODULE | --testbench FILE]``.

A design.yaml from existing RTL. The interface is read from the elaborated top module by pyslang (names,
directions, widths after default parameters, signedness); the clock and reset are guessed from names and
sensitivity lists and marked ``# REVIEW``; the given sources become ``sources:`` and the seed; ``spec.md``
gets a stub listing the ports for the user to complete. A FuseSoC ``.core`` or EDAM ``.eda.yml`` works too
(via ``project.cores``).

The design's own sources are never its reference (a design compared with itself passes every check).
What judges its function is the user's choice: ``--golden DIR`` (today's sources copied into DIR as the
reference, see ``project.golden``), ``--cocotb MODULE`` / ``--testbench FILE`` (the project's own tests),
or nothing yet, in which case the written file says so and ``hh gate`` exits 2 until one is added. The
formal check is on; with a clock the objective is ``constrained`` (meet the clock, then area and power).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import click
import yaml

from ..errors import ConfigError, InputError
from ..hdl.arrays import ArrayPortError, array_shapes, check_array_ports
from ..hdl.filelist import SourceSet, is_filelist, parse_filelist
from ..hdl.parse import K, parse_files, walk
from ..hdl.ports import ElaborationError, read_module
from ..jsonio import write_text_atomic

_CLOCK = re.compile(r"^(clk|clock|i_clk|clk_i|.*_clk|clk_.*|.*clock.*)$", re.I)
_RESET = re.compile(r"^(rst|reset|areset|arst|i_rst|rst_i).*|.*_(rst|reset)(_n|_ni|n|_b|_l)?$", re.I)
_ACTIVE_LOW = re.compile(r"(_n|_ni|n|_b|_l|_neg)$", re.I)


@dataclass(frozen=True)
class PortSpec:
    name: str
    dir: str
    width: int  # bits (of one element, for an unpacked array)
    signed: bool
    unpacked: tuple[int, int] | None = None  # [left, right] of an unpacked array port


class ResetGuess(TypedDict):
    name: str
    active: str  # "high" / "low"
    sync: bool


def read_interface(ss: SourceSet, top: str) -> tuple[list[PortSpec], list[str]]:
    """(ports of ``top``, the text of every sensitivity list) or InputError naming file:line."""
    include_dirs = [*ss.include_dirs, *sorted({f.parent for f in ss.files})]
    trees = parse_files(ss.files, include_dirs, ss.defines)
    try:
        view = read_module(trees, top)
    except ElaborationError as exc:
        raise InputError(str(exc)) from None
    try:
        check_array_ports(trees)  # what the canonical rewrite would refuse at `hh gate`
        arrays = array_shapes(trees, top) if any(p.unpacked for p in view.ports) else {}
    except ArrayPortError as exc:
        raise InputError(str(exc)) from None
    ports = []
    for p in view.ports:
        shape = arrays.get(p.name)
        if shape is not None:
            if p.dir not in ("input", "output"):
                raise InputError(f"{p.where}: port {p.name}: an unpacked array port must be an input or an output")
            ports.append(PortSpec(p.name, p.dir, shape.width, shape.signed, (shape.left, shape.right)))
            continue
        if not p.integral:
            raise InputError(f"{p.where}: port {p.name}: type {p.type} is not a bit vector")
        ports.append(PortSpec(p.name, p.dir if p.dir in ("input", "output") else "inout", p.width, p.signed))
    events = [str(n) for t in trees for n in walk(t.root) if n.kind == K.EventControlWithExpression]
    return ports, events


def guess_clock_reset(ports: list[PortSpec], events: list[str]) -> tuple[str | None, ResetGuess | None]:
    """The clock: a 1-bit input named like one and used on an edge; the reset: named like one.

    Asynchronous when the reset appears in an edge list, active low when its name says so."""
    one_bit = [p.name for p in ports if p.dir == "input" and p.width == 1 and p.unpacked is None]
    edges = " ".join(events)
    clocks = [n for n in one_bit if _CLOCK.match(n)]
    clocks.sort(key=lambda n: (f"edge {n}" not in edges, n))
    clock = clocks[0] if clocks else None
    resets = [n for n in one_bit if n != clock and _RESET.match(n)]
    if clock is None or not resets:
        return clock, None
    name = resets[0]
    asynch = re.search(rf"(posedge|negedge)\s+{re.escape(name)}\b", edges) is not None
    low = bool(_ACTIVE_LOW.search(name)) or re.search(rf"negedge\s+{re.escape(name)}\b", edges) is not None
    return clock, {"name": name, "active": "low" if low else "high", "sync": not asynch}


def _flow(data: object) -> str:
    return yaml.safe_dump(data, default_flow_style=True, sort_keys=False, width=1000).strip()


@dataclass(frozen=True)
class Checks:
    """What judges the design's function, as paths relative to design.yaml (all None: nothing yet)."""

    reference: str | None = None
    cocotb: str | None = None
    test_dir: str | None = None
    testbench: str | None = None


def _verification(checks: Checks) -> list[str]:
    lines = ["verification:"]
    if checks.reference:
        lines.append(f"  reference: {checks.reference}   # a copy of the RTL as it was at hh init: every change must "
                     "match it")
    if checks.cocotb:
        lines.append(f"  cocotb: {checks.cocotb}")
        if checks.test_dir:
            lines.append(f"  test_dir: {checks.test_dir}")
    if checks.testbench:
        lines.append(f"  testbench: {checks.testbench}   # REVIEW: prints PASSED (pass_regex) when it passes")
    if not (checks.reference or checks.cocotb or checks.testbench):
        lines += ["  # NOTHING judges the design's function yet: hh gate exits 2 until one of these is set",
                  "  # reference: golden/reference.f   # a copy of today's RTL: hh init ... --golden golden --force",
                  "  # cocotb: test_mydesign           # your cocotb test module (test_dir: its folder)",
                  "  # testbench: tb.v                 # a self-checking testbench that prints PASSED"]
    lines += ["  differential: {cycles: 400, seed: 1}",
              "  # the formal check against the reference: proven, or bounded when no proof finishes in its budget",
              "  equivalence: {enabled: true, timeout_s: 120}"]
    return lines


def design_yaml(name: str, top: str, ports: list[PortSpec], clock: str | None, reset: ResetGuess | None,
                sources: list[str], checks: Checks, seeds: str, period_ns: float) -> str:
    lines = ["# written by hh init: check every line marked REVIEW, then run `hh gate {this file}`",
             f"name: {name}", f"top: {top}", "spec: spec.md                # REVIEW: describe the behaviour",
             f"sources: {_flow(sources)}", "interface:"]
    if clock:
        lines.append(f"  clock: {clock}               # REVIEW: guessed from the name and the edge lists")
    if reset:
        lines.append(f"  reset: {_flow(reset)}   # REVIEW: guessed (name, edge lists)")
    lines.append("  ports:")
    for p in ports:
        d: dict[str, object] = {"name": p.name, "dir": p.dir, "width": p.width}
        if p.signed:
            d["signed"] = True
        if p.unpacked is not None:
            d["unpacked"] = list(p.unpacked)
        lines.append(f"    - {_flow(d)}")
    lines += _verification(checks)
    lines += ["ppa:", "  liberty: osu018", f"  clock_period_ns: {period_ns:g}      # REVIEW: your target clock"]
    if clock:
        lines += ["  # constrained: meet clock_period_ns first, then minimise area and power (slack beyond the clock",
                  "  # earns nothing); `objective: weighted` trades delay against area and power by `weights:`",
                  "  objective: constrained"]
    lines += ["generation:",
              "  provider: offline",
              f"  seeds: {seeds}",
              "anneal: {iterations: 20, seed: 1, chains: 2}", ""]
    return "\n".join(lines)


def spec_stub(top: str, ports: list[PortSpec], clock: str | None, reset: ResetGuess | None) -> str:
    rows = "\n".join(f"| `{p.name}` | {p.dir} | {p.width}{' signed' if p.signed else ''}"
                     f"{f' x [{p.unpacked[0]}:{p.unpacked[1]}]' if p.unpacked else ''} |  |" for p in ports)
    timing = f"Clocked on the rising edge of `{clock}`." if clock else "Combinational."
    if reset:
        timing += (f" Reset `{reset['name']}` is active {reset['active']}, "
                   f"{'synchronous' if reset['sync'] else 'asynchronous'}.")
    return (f"# {top}\n\nREVIEW: the generator and the LLM moves read this text; say what `{top}` computes, "
            f"its latency and any corner cases.\n\n{timing}\n\n"
            f"| port | dir | width | meaning |\n|---|---|---|---|\n{rows}\n")


def _rel(p: Path, base: Path) -> str:
    """``p`` relative to ``base`` (the design.yaml's folder), ``../`` where needed: committable anywhere."""
    return os.path.relpath(Path(p).resolve(), base)


def _checks(base: Path, design: Path, ss: SourceSet, golden: str | None, cocotb: str | None,
            testbench: str | None, force: bool) -> tuple[Checks, list[Path]]:
    """What judges the design (``--golden``, ``--cocotb``, ``--testbench``) and the files written for it."""
    from .golden import HOOK_FILE, snapshot, write_hook

    written: list[Path] = []
    ref = test_dir = tb = None
    if cocotb:  # the arguments first: an error leaves no golden copy behind
        given = Path(cocotb)
        if given.suffix == ".py" or len(given.parts) > 1:  # a path to the test module
            if not given.with_suffix(".py").is_file():
                raise InputError(f"--cocotb {cocotb}: file not found")
            test_dir, cocotb = _rel(given.resolve().parent, base), given.stem
        elif not (base / f"{cocotb}.py").is_file():
            raise InputError(f"--cocotb {cocotb}: no {cocotb}.py beside {design.name} (give its path)")
    if testbench:
        if not Path(testbench).is_file():
            raise InputError(f"--testbench {testbench}: file not found")
        tb = _rel(Path(testbench), base)
    if golden:
        folder = Path(golden).resolve()
        if (base / HOOK_FILE).exists() and not force:
            raise ConfigError(f"{base / HOOK_FILE}: already exists (use --force to overwrite)")
        reffile = snapshot(ss, folder, force=force)
        written += [reffile, write_hook(design, folder, force=True)]
        ref = _rel(reffile, base)
    return Checks(reference=ref, cocotb=cocotb, test_dir=test_dir, testbench=tb), written


def _defines(items: tuple[str, ...]) -> dict[str, str]:
    from ..hdl.literals import LiteralError, define

    out = {}
    for item in items:
        name, eq, value = item.partition("=")
        value = value if eq else "1"
        try:
            define(name, value)
        except LiteralError as exc:
            raise ConfigError(f"--define {item}: {exc}") from None
        out[name] = value
    return out


def init_project(top: str, files: tuple[str, ...], filelists: tuple[str, ...], out: Path, *, name: str | None,
                 period_ns: float, force: bool, golden: str | None = None, cocotb: str | None = None,
                 testbench: str | None = None, defines: tuple[str, ...] = (),
                 notes: list[str] | None = None) -> list[Path]:
    """Write design.yaml (and spec.md, a filelist when plain files or ``defines`` were given, the golden copy
    and its pre-commit entry with ``golden``); return what was written. ``defines``: ``NAME[=VALUE]`` (a
    core's vlogdefine or any macro; no value is 1, as FuseSoC's ``--NAME``); ``notes`` gets what the user
    should know (a core's vlogdefines left undefined)."""
    from .cores import read_core

    out = Path(out).resolve()
    base = out.parent
    if out.exists() and not force:
        raise ConfigError(f"{out}: already exists (use --force to overwrite)")
    ss = SourceSet()
    written: list[Path] = []
    for f in filelists:
        if not Path(f).is_file():
            raise InputError(f"-f {f}: file not found")
    for f in files:
        if not Path(f).is_file():
            raise InputError(f"{f}: file not found")
    cores = [f for f in files if f.endswith((".core", ".eda.yml"))]
    plain = [f for f in files if f not in cores and not is_filelist(f)]
    lists = list(filelists) + [f for f in files if is_filelist(f)]
    for f in lists:
        ss.merge(parse_filelist(Path(f)))
    given = _defines(defines)
    for f in cores:
        core = read_core(Path(f), given)
        ss.merge(core.sources)
        if core.optional and notes is not None:
            notes.append(f"{f}: left undefined (no default, as in FuseSoC): {', '.join(core.optional)}; "
                         "define one with --define NAME[=VALUE]")
    ss.defines.update(given)
    ss.merge(SourceSet(files=[Path(f).resolve() for f in plain]))
    if not ss.files:
        raise ConfigError("hh init: give RTL files or -f FILELIST")
    ports, events = read_interface(ss, top)
    if not any(p.dir == "output" for p in ports):
        raise InputError(f"top module {top}: no output port")
    clock, reset = guess_clock_reset(ports, events)
    if len(lists) == 1 and not plain and not cores and not given:
        design_f = _rel(Path(lists[0]), base)
    else:  # one filelist names the design for sources and seed alike
        flist = base / f"{top}.f"
        if flist.exists() and not force:
            raise ConfigError(f"{flist}: already exists (use --force to overwrite)")
        body = [f"+incdir+{_rel(d, base)}" for d in ss.include_dirs]
        body += [f"+define+{k}={v}" if v else f"+define+{k}" for k, v in ss.defines.items()]
        body += [_rel(f, base) for f in ss.files]
        write_text_atomic(flist, "// written by hh init\n" + "\n".join(body) + "\n")
        written.append(flist)
        design_f = _rel(flist, base)
    checks, extra = _checks(base, out, ss, golden, cocotb, testbench, force)
    text = design_yaml(name or top, top, ports, clock, reset, [f"-f {design_f}"], checks, design_f, period_ns)
    write_text_atomic(out, text)
    written = [out, *written, *extra]
    spec = base / "spec.md"
    if not spec.exists():
        write_text_atomic(spec, spec_stub(top, ports, clock, reset))
        written.append(spec)
    return written


@click.command("init")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--top", required=True, help="The top module.")
@click.option("-f", "--filelist", "filelists", multiple=True, type=click.Path(dir_okay=False),
              help="A filelist (+incdir+, +define+, -f nesting); repeatable.")
@click.option("-o", "--output", "output", default="design.yaml", show_default=True, type=click.Path(dir_okay=False),
              help="Where to write the design.yaml (spec.md goes beside it).")
@click.option("--name", default=None, help="Design name (default: the top module).")
@click.option("--clock-period", "period_ns", default=10.0, show_default=True,
              type=click.FloatRange(min=0, min_open=True), help="Target clock period in ns.")
@click.option("--golden", type=click.Path(file_okay=False),
              help="Copy today's sources into this folder as the reference (and write pre-commit-hh.yaml).")
@click.option("--cocotb", help="Your cocotb test module: a name beside design.yaml or a path to the .py file.")
@click.option("--testbench", type=click.Path(dir_okay=False), help="Your self-checking testbench (prints PASSED).")
@click.option("--define", "defines", multiple=True, metavar="NAME[=VALUE]",
              help="Define a macro (a FuseSoC core's vlogdefine with no default, e.g. a formal-port switch); "
                   "no value is 1; repeatable.")
@click.option("--force", is_flag=True, help="Overwrite an existing design.yaml, filelist or golden copy.")
def init(files: tuple[str, ...], top: str, filelists: tuple[str, ...], output: str, name: str | None,
         period_ns: float, golden: str | None, cocotb: str | None, testbench: str | None,
         defines: tuple[str, ...], force: bool) -> int:
    """Write a design.yaml for existing RTL: FILES (.v/.sv, filelists, a FuseSoC .core or EDAM .eda.yml) or -f.

    What judges the design's function: --golden DIR, --cocotb MODULE and/or --testbench FILE; with none,
    `hh gate` exits 2 until verification.reference, cocotb or testbench is set."""
    notes: list[str] = []
    written = init_project(top, files, filelists, Path(output), name=name, period_ns=period_ns, force=force,
                           golden=golden, cocotb=cocotb, testbench=testbench, defines=defines, notes=notes)
    for note in notes:
        click.echo(f"note: {note}", err=True)
    for p in written:
        click.echo(f"wrote {p}")
    if not (golden or cocotb or testbench):
        click.echo("note: nothing judges the design's function yet: add --golden DIR, --cocotb MODULE or "
                   "--testbench FILE (or set verification.reference/cocotb/testbench)", err=True)
    click.echo(f"next: review the lines marked REVIEW, then `hh gate {written[0]}`", err=True)
    return 0
