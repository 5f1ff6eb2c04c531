"""Child-process entry of ``run_cocotb``: build and test with cocotb's runner, then exit.

Usage: ``python -m hyperheurist.sim.cocotb_child spec.json``. Writes ``status`` JSON with the
stage reached; the parent reads the verdict from the results XML.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

from ..jsonio import read_json, write_json

TIMESCALE = ("1ns", "1ps")
DUMP_MODULE = "hh_vcd_dump"


def _dump_module(path: Path, toplevel: str) -> Path:
    """A second top module that dumps the whole design as VCD (relative name: cwd is the build dir)."""
    path.write_text(
        f"module {DUMP_MODULE};\n  initial begin\n    $dumpfile(\"dump.vcd\");\n"
        f"    $dumpvars(0, {toplevel});\n  end\nendmodule\n",
        encoding="utf-8",
    )
    return path


def _runner(simulator: str, vcd: bool):
    from cocotb_tools.runner import Icarus, Verilator

    class VcdIcarus(Icarus):
        """cocotb adds vvp's ``-none`` (no dumping) unless FST waves are on; we want our VCD instead."""

        def _test_command(self):  # type: ignore[override]
            cmds = super()._test_command()
            return [[a for a in cmd if a != "-none"] for cmd in cmds]

    if simulator == "icarus":
        return VcdIcarus() if vcd else Icarus()
    return Verilator()


def main(spec_path: str) -> int:
    spec = read_json(Path(spec_path))
    status = Path(spec["status"])
    build_dir = Path(spec["build_dir"])
    stage = "setup"
    try:
        sys.path.insert(0, spec["test_dir"])  # the runner forwards sys.path to the simulator's Python
        runner = _runner(spec["simulator"], spec["vcd"])
        sources = [Path(s) for s in spec["sources"]]
        build_args: list[str] = []
        waves = False
        if spec["vcd"]:
            if spec["simulator"] == "icarus":
                sources.append(_dump_module(build_dir / f"{DUMP_MODULE}.v", spec["toplevel"]))
                build_args += ["-s", DUMP_MODULE]
            else:
                waves = True  # Verilator's cocotb main writes dump.vcd in the cwd
        write_json(status, {"stage": "build"})
        stage = "build"
        runner.build(sources=sources, hdl_toplevel=spec["toplevel"], parameters=spec["params"],
                     build_args=build_args, build_dir=build_dir, always=True, timescale=TIMESCALE,
                     waves=waves, log_file=build_dir / "build.log")
        stage = "test"
        write_json(status, {"stage": "test"})
        runner.test(test_module=spec["test_module"], hdl_toplevel=spec["toplevel"], hdl_toplevel_lang="verilog",
                    seed=spec["seed"], parameters=spec["params"], build_dir=build_dir, test_dir=build_dir,
                    results_xml=spec["results_xml"], timescale=TIMESCALE, waves=waves,
                    log_file=build_dir / "sim.log")
    except SystemExit as exc:
        if stage != "test":
            write_json(status, {"stage": stage, "error": f"{exc}"})
        return 1
    except Exception as exc:  # reported to the parent as data; the traceback stays in the log
        traceback.print_exc()
        msg = _build_error(build_dir / "build.log") if stage == "build" else f"{type(exc).__name__}: {exc}"
        write_json(status, {"stage": stage, "error": msg})
        return 1
    write_json(status, {"stage": "done"})
    return 0


def _build_error(log: Path) -> str:
    """The first error line of the simulator's compile log."""
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "build failed (no log)"
    for line in text.splitlines():
        if "error" in line.lower() or "syntax" in line.lower():
            return line.strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1].strip() if lines else "build failed"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
