"""One fake EDA tool (Edalize-style): records how it was called, then writes the least a stage reads.

Run through a launcher that ``tests/fake_tools/__init__.py`` writes per test (``<tool>`` beside this
file, its shebang the test interpreter): ``main("<tool>")``. Standard library only: it runs inside
the tool sandbox, where it can read its own folder and write its working directory only.

What it records, in ``.hhfake-<ns>-<tool>.json`` in its working directory: argv (without argv[0]),
the working directory, the text of every script or command file named in argv (``.ys``, ``.tcl``,
``.f``, ``.ivlpp``) and of the Verilog hh generated for the call (``hh_*.v``), and the NAMES of its
environment variables (values may hold paths or secrets).
Version probes (``-V`` and the like) are answered and not recorded.

What it does is set by ``scenario.json`` beside it: ``{tool: [rule, ...]}``; the first rule whose
``match`` (a substring of the argv joined by spaces and of the scripts' text; absent = any call)
matches applies: ``exit`` (code), ``stdout``/``stderr`` (printed), ``sleep`` (seconds, before
anything else: a hang), ``outputs`` (false: write none of the tool's output files), ``signal``
(the tool kills itself with it at the end: a crash).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SCRIPT_SUFFIXES = (".ys", ".tcl", ".f", ".ivlpp")
VERSION_ARGV = {"iverilog": ["-V"], "vvp": ["-V"], "ivlpp": ["-V"], "verilator": ["--version"],
                "yosys": ["-V"], "yosys-abc": ["-c", "version"], "sta": ["-version"]}
VERILOG = (".v", ".sv")
GENERATED = re.compile(r"^(?:\S*/)?hh_\w*\.v$")
# what the stages parse out of OpenSTA's reports (ppa/sta.py)
STA_CHECKS = """Startpoint: hh_in (input port clocked by hh_clk)
Endpoint: hh_out (output port clocked by hh_clk)
Path Group: hh_clk
Path Type: max

  1.000000   data arrival time
  4.000000   slack (MET)
"""
STA_POWER = """Group                  Internal  Switching    Leakage      Total
Total                  1.00e-05   2.00e-05   3.00e-09   3.00e-05 100.0%
"""


def _scripts(argv: list[str], cwd: Path) -> dict[str, str]:
    """The script and command files named in argv (``-s x.ys``, ``-Fdefines.ivlpp``, ``-f cmds.f``), and
    the Verilog hh generates (``hh_*.v``: benches, wrappers) named in argv or in those scripts."""
    out: dict[str, str] = {}

    def keep(name: str) -> None:
        p = cwd / name
        if p.is_file() and name not in out:
            out[name] = p.read_text(encoding="utf-8", errors="replace")

    for arg in argv:
        for cand in (arg, arg[2:] if arg[:2] in ("-F", "-f") else ""):
            if cand.endswith(SCRIPT_SUFFIXES):
                keep(cand)
    for word in [*argv, *(w for text in list(out.values()) for w in text.split())]:
        if GENERATED.match(word):
            keep(word)
    return out


def _rule(tool: str, argv: list[str], scripts: dict[str, str]) -> dict[str, Any]:
    path = HERE / "scenario.json"
    rules = json.loads(path.read_text(encoding="utf-8")).get(tool, []) if path.is_file() else []
    text = " ".join(argv) + "\n" + "\n".join(scripts.values())
    for rule in rules:
        match = rule.get("match")
        if match is None or match in text:
            return dict(rule)
    return {}


def _after(argv: list[str], flag: str) -> str | None:
    for i, arg in enumerate(argv[:-1]):
        if arg == flag:
            return argv[i + 1]
    return None


def _ivlpp(argv: list[str]) -> None:
    out = next(a[2:] for a in argv if a.startswith("-o"))
    text = ""
    for src in (a for a in argv if not a.startswith("-")):
        text += f'`line 1 "{src}" 0\n' + Path(src).read_text(encoding="utf-8", errors="replace")
    Path(out).write_text(text, encoding="utf-8")


def _iverilog(argv: list[str]) -> None:
    # the "compiled" design is its sources: the fake vvp finds in them what the benches would print
    srcs = [a for a in argv if a.endswith(VERILOG) and not a.startswith("-")]
    body = "".join(Path(s).read_text(encoding="utf-8", errors="replace") for s in srcs)
    Path(_after(argv, "-o") or "a.out").write_text("#! fake vvp image\n" + body, encoding="utf-8")


def _vvp(argv: list[str]) -> None:
    image = next((a for a in argv if a.endswith(".vvp")), "")
    text = Path(image).read_text(encoding="utf-8", errors="replace") if image else ""
    results = os.environ.get("COCOTB_RESULTS_FILE")
    if results:  # cocotb's simulation: one passing test per test module, in cocotb's JUnit form
        cases = "".join(f'<testcase name="fake_test" classname="{m}"/>'
                        for m in os.environ.get("COCOTB_TEST_MODULES", "").split(",") if m)
        Path(results).write_text(f'<testsuites><testsuite name="all">{cases}</testsuite></testsuites>\n',
                                 encoding="utf-8")
        return
    for token in dict.fromkeys(re.findall(r"HH_PASS_([0-9a-f]+)", text)):
        print(f"HH_PASS_{token} cycles=1")
    for token in dict.fromkeys(re.findall(r"HH_ACT_DONE_([0-9a-f]+)", text)):
        print(f"HH_ACT_DONE_{token}")
    for line in re.findall(r'\$display\("([^"%]*PASS[^"%]*)"\)', text):
        print(line)
    for dump in dict.fromkeys(re.findall(r'\$dumpfile\("([^"]+)"\)', text)):  # a waveform without a change
        Path(dump).write_text("$timescale 1ps $end\n$enddefinitions $end\n#0\n", encoding="utf-8")


def _yosys(argv: list[str], scripts: dict[str, str]) -> None:
    log = _after(argv, "-l")
    script = scripts.get(_after(argv, "-s") or "", "")
    top = "top"
    for line in script.splitlines():
        words = line.split()
        if "-top" in words[:-1]:
            top = words[words.index("-top") + 1]
        if words[:2] == ["tee", "-o"]:
            Path(words[2]).write_text("", encoding="utf-8")
        elif words[:1] == ["write_rtlil"]:
            Path(words[-1]).write_text("module \\hh_miter\nend\n", encoding="utf-8")
        elif words[:1] == ["write_aiger"]:
            Path(_after(words, "-map") or "map").write_text("", encoding="utf-8")
            Path(words[-1]).write_text("aag 0 0 0 0 0\n", encoding="utf-8")
        elif words[:1] == ["write_verilog"]:
            Path(words[-1]).write_text(f"module {top}(a, y);\n  input a;\n  output y;\n"
                                       "  INVX1 _1_ (.A(a), .Y(y));\nendmodule\n", encoding="utf-8")
        elif words[:1] == ["write_json"]:  # the same one-inverter netlist
            cell = {"hide_name": 0, "type": "INVX1", "parameters": {}, "attributes": {},
                    "connections": {"A": [2], "Y": [3]}}
            module = {"attributes": {}, "ports": {"a": {"direction": "input", "bits": [2]},
                                                  "y": {"direction": "output", "bits": [3]}},
                      "cells": {"_1_": cell}, "netnames": {"a": {"hide_name": 0, "bits": [2], "attributes": {}},
                                                          "y": {"hide_name": 0, "bits": [3], "attributes": {}}}}
            Path(words[-1]).write_text(json.dumps({"creator": "fake yosys", "modules": {top: module}}),
                                       encoding="utf-8")
        elif words[:1] == ["sat"]:
            print("SUCCESS!")
    if log:
        Path(log).write_text(script, encoding="utf-8")


def _abc(argv: list[str]) -> None:
    commands = _after(argv, "-c") or ""
    if "&cec" in commands:
        print("Networks are equivalent.")
    elif "pdr" in commands:
        print("Property proved.")
    elif "bmc3" in commands:
        print("No output asserted in 20 frames.")


def _sta(argv: list[str], scripts: dict[str, str]) -> None:
    for line in scripts.get(argv[-1], "").splitlines():
        words = line.split()
        if words[:1] == ["puts"]:
            print(words[1])
        elif words[:1] == ["report_checks"]:
            print(STA_CHECKS, end="")
        elif words[:1] == ["report_worst_slack"]:
            print("worst slack 4.000000")
        elif words[:1] == ["report_power"]:
            print(STA_POWER, end="")


def _outputs(tool: str, argv: list[str], scripts: dict[str, str]) -> None:
    if tool == "ivlpp":
        _ivlpp(argv)
    elif tool == "iverilog":
        _iverilog(argv)
    elif tool == "vvp":
        _vvp(argv)
    elif tool == "yosys":
        _yosys(argv, scripts)
    elif tool == "yosys-abc":
        _abc(argv)
    elif tool == "sta":
        _sta(argv, scripts)
    # verilator --lint-only: silence is a clean lint


def main(tool: str) -> int:
    argv = sys.argv[1:]
    if argv == VERSION_ARGV.get(tool):
        print(f"fake {tool} ({HERE})")  # the folder: no cache entry is shared with another test's fakes
        return 0
    cwd = Path.cwd()
    scripts = _scripts(argv, cwd)
    record = {"tool": tool, "argv": argv, "cwd": str(cwd), "scripts": scripts, "env": sorted(os.environ)}
    (cwd / f".hhfake-{time.time_ns()}-{tool}.json").write_text(json.dumps(record, indent=1), encoding="utf-8")
    rule = _rule(tool, argv, scripts)
    time.sleep(float(rule.get("sleep", 0)))
    if rule.get("outputs", True):
        _outputs(tool, argv, scripts)
    sys.stdout.write(str(rule.get("stdout", "")))
    sys.stderr.write(str(rule.get("stderr", "")))
    if "signal" in rule:
        sys.stdout.flush()
        os.kill(os.getpid(), int(rule["signal"]))
    return int(rule.get("exit", 0))
