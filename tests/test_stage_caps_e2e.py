"""The process-count and per-stage disk caps end to end (issue 29, item 4): code that runs inside a stage is
hostile, here a cocotb test module (the simulation stage runs it inside the sandbox, beside the design). One that
starts hundreds of processes, and one that writes past the stage's disk cap, each give a clean failed gate:
`hh gate` exit 1, the gate's line naming the limit; never exit 3 or a hang, and no process is left.

tests/test_runner.py tests the caps at run_tool level (the result is `limited`); these go through the stage."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from test_runner import _processes_with

from hyperheurist.runner import DEFAULT_MAX_DISK, DEFAULT_MAX_PROCS

COUNTER = Path(__file__).parent / "data" / "gates" / "counter"
TAG = uuid.uuid4().hex[:10]

# starts far more processes than the cap, each a shell whose command line carries a marker hh's test looks for
FORKER = f'''
import subprocess
import cocotb
from cocotb.triggers import Timer


@cocotb.test()
async def many_processes(dut):
    started = []
    for i in range({3 * DEFAULT_MAX_PROCS}):
        try:
            started.append(subprocess.Popen(["/bin/sh", "-c", "sleep 600; : hh-fork-MARKER"]))
        except OSError:
            pass  # refused at the cap: go on asking
    await Timer(1, unit="ns")
'''

# writes 1.5 times the stage's disk cap, in files each far under the per-file cap, then passes
FILLER = f'''
import cocotb
from cocotb.triggers import Timer

CHUNK = b"x" * (1 << 20)


@cocotb.test()
async def fills_the_disk(dut):
    for i in range({(3 * DEFAULT_MAX_DISK // 2) >> 26}):
        with open(f"fill_{{i}}.bin", "wb") as f:
            for _ in range(64):
                f.write(CHUNK)
    await Timer(1, unit="ns")
'''


def _gate(tmp_path: Path, test_module: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    d = tmp_path / "design"
    d.mkdir()
    for name in ("design.yaml", "ref.v", "spec.md"):
        (d / name).write_bytes((COUNTER / name).read_bytes())
    (d / "test_counter.py").write_text(test_module)
    wd = tmp_path / "wd"
    res = subprocess.run([sys.executable, "-m", "hyperheurist", "gate", str(d / "design.yaml"),
                          str(COUNTER / "good.v"), "--workdir", str(wd), "--json", "--only", "compile", "--only",
                          "simulation", "--set", "verification.differential.enabled=false"],
                         capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL, check=False,
                         env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert "Traceback" not in res.stdout + res.stderr, res.stderr
    return res, wd


def _simulation(res: subprocess.CompletedProcess[str]) -> dict:
    assert res.returncode == 1, f"rc={res.returncode}\n{res.stdout[-3000:]}\n{res.stderr[-2000:]}"
    report = json.loads(res.stdout)
    sims = [g for g in report["results"] if g["gate"] == "simulation"]
    assert len(sims) == 1 and not sims[0]["passed"], report
    return sims[0]


@pytest.mark.tools
@pytest.mark.slow
def test_a_test_module_starting_hundreds_of_processes_is_a_failed_gate(tmp_path: Path) -> None:
    marker = f"hh-fork-{TAG}"
    res, wd = _gate(tmp_path, FORKER.replace("hh-fork-MARKER", marker))
    sim = _simulation(res)
    assert "process limit" in sim["message"], sim
    assert _processes_with(marker) == [], "a process the test module started outlived the gate"
    assert not _processes_with(str(wd)), "a tool outlived the gate"


@pytest.mark.tools
@pytest.mark.slow
def test_a_test_module_writing_past_the_disk_cap_is_a_failed_gate(tmp_path: Path) -> None:
    res, wd = _gate(tmp_path, FILLER)
    sim = _simulation(res)
    assert "disk-use limit" in sim["message"], sim
    assert not _processes_with(str(wd)), "a tool outlived the gate"
