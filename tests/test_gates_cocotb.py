"""hyperheurist.sim.cocotb_run: verdicts from the results XML, the wall-clock kill, VCD dumping."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperheurist.sim.cocotb_run import run_cocotb

DATA = Path(__file__).parent / "data" / "gates" / "counter"
pytestmark = pytest.mark.tools


def _run(tmp_path: Path, rtl: str, **kw):
    return run_cocotb(sources=[DATA / rtl], toplevel="counter", test_module="test_counter", test_dir=DATA,
                      build_dir=tmp_path / "build", timeout_s=kw.pop("timeout_s", 30), **kw)


def test_passing_design_and_vcd(tmp_path: Path) -> None:
    vcd = tmp_path / "waves" / "counter.vcd"
    out = _run(tmp_path, "good.v", vcd_path=vcd)
    assert out.passed and out.tests == 1 and out.failures == 0 and not out.timed_out
    assert out.results_xml is not None and out.results_xml.is_file()
    text = vcd.read_text()
    assert "$var reg 8" in text and "count" in text and "$enddefinitions" in text


def test_failing_test_is_data(tmp_path: Path) -> None:
    out = _run(tmp_path, "reset_polarity.v")
    assert not out.passed and out.kind == "failed" and out.failures == 1
    assert "counts_and_wraps" in out.message


def test_hang_is_killed_at_the_timeout(tmp_path: Path) -> None:
    out = _run(tmp_path, "hang.v", timeout_s=4)
    assert not out.passed and out.timed_out and out.kind == "timeout"
    assert 3.5 < out.wall_s < 15


def test_build_error_is_data(tmp_path: Path) -> None:
    bad = tmp_path / "bad.v"
    bad.write_text("module counter(input clk); wire x = ; endmodule\n")
    out = run_cocotb(sources=[bad], toplevel="counter", test_module="test_counter", test_dir=DATA,
                     build_dir=tmp_path / "b", timeout_s=30)
    assert not out.passed and out.kind == "build" and "bad.v" in out.message
