"""The invariant searches (``formal.invariants``, ``formal.bitclaims``) run their tools under the design's limits,
as every proof does (``formal.driver``; issue 31): ``tool_mem_mb``, ``sandbox``, and ``tool_timeout_s`` as the
ceiling of each run's wall clock. They had their own 4096 MB and sandbox mode whatever the design said. Their
default temporary folders are owned (``tempdirs``), so one a killed hh left is removed by the next search (issue 33).

The runs are the real tools; a spy on the site's ``run_tool`` records what each was given.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from hyperheurist.config import Limits, Reset
from hyperheurist.formal.bitclaims import BitJob, find_bits
from hyperheurist.formal.invariants import Claim, InvariantJob, find
from hyperheurist.rewrite.interface import module_interface
from hyperheurist.stages import serve
from hyperheurist.tempdirs import _pidns

pytestmark = pytest.mark.tools
RST = Reset(name="rst", active="high")
# ovf can never be set (cnt saturates at 10): PDR proves ovf == 0; cnt and t1 change
SATURATING = """module t(input clk, input rst, input inc, output reg [3:0] cnt, output reg ovf, output [3:0] tog);
  reg [3:0] t1;
  always @(posedge clk)
    if (rst) begin cnt <= 4'd0; ovf <= 1'b0; t1 <= 4'd0; end
    else begin
      if (inc && cnt != 4'd10) cnt <= cnt + 4'd1;
      if (inc && cnt == 4'd15) ovf <= 1'b1;
      if (inc) t1 <= t1 + 4'd3;
    end
  assign tog = t1;
endmodule
"""
STEPS = """module t(input clk, input rst, input adv, output [2:0] step, output last);
  integer idx;
  always @(posedge clk)
    if (rst) idx <= 0;
    else if (adv) begin
      if (idx == 5) idx <= 0;
      else idx <= idx + 1;
    end
  assign step = idx[2:0];
  assign last = (idx == 5);
endmodule
"""


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    real = serve.run_tool

    def spy(argv: list[str], **kw: Any) -> Any:
        seen.append({"name": kw["name"], **kw})
        return real(argv, **kw)

    monkeypatch.setattr(serve, "run_tool", spy)
    return seen


@pytest.fixture
def tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temp folder, private to the test."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _stale(tmp: Path, prefix: str) -> Path:
    """The folder a SIGKILLed hh (a process that is gone) left."""
    proc = subprocess.Popen(["/bin/true"])
    proc.wait()
    folder = tmp / f"{prefix}{_pidns()}-{proc.pid}-x"
    (folder / "inside").mkdir(parents=True)
    assert not os.path.exists(f"/proc/{proc.pid}")
    return folder


def test_an_invariant_search_runs_under_the_designs_limits_in_an_owned_folder(
        tmp: Path, runs: list[dict[str, Any]]) -> None:
    stale = _stale(tmp, "hh-inv-")
    iface = module_interface(SATURATING, "t", clock="clk", reset=RST)
    claims = (Claim("ovf", 1, value=0), Claim("cnt", 4, value=0), Claim("t1", 4, other="cnt"))
    limits = Limits(tool_mem_mb=3000, tool_timeout_s=30, sandbox="off")  # the batch's own backstop: 45 s
    assert find(InvariantJob({"t.v": SATURATING}, "t", iface, claims), limits) == {0}
    assert runs and {(r["mem_mb"], r["sandbox"]) for r in runs} == {(3000, "off")}, runs
    assert max(r["timeout_s"] for r in runs) == 30, runs
    assert not stale.exists(), "the search did not remove a killed hh's invariant folder"
    assert list(tmp.iterdir()) == [], "the search left its temporary folder"


def test_a_bit_invariant_search_runs_under_the_designs_limits_in_an_owned_folder(
        tmp: Path, runs: list[dict[str, Any]]) -> None:
    stale = _stale(tmp, "hh-bits-")
    iface = module_interface(STEPS, "t", clock="clk", reset=RST)
    limits = Limits(tool_mem_mb=2500, tool_timeout_s=20, sandbox="off")  # the search's own backstop: 21 s
    got = find_bits(BitJob({"t.v": STEPS}, "t", iface, (("idx", 32),), cpu_s=4), limits)
    assert {c.describe() for c in got} == {f"idx[{b}] == 1'b0" for b in range(3, 32)}
    assert runs and {(r["mem_mb"], r["sandbox"]) for r in runs} == {(2500, "off")}, runs
    assert max(r["timeout_s"] for r in runs) == 20, runs
    assert not stale.exists(), "the search did not remove a killed hh's bit invariant folder"
    assert list(tmp.iterdir()) == [], "the search left its temporary folder"
