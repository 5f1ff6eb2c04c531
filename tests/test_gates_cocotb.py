"""hyperheurist.sim.cocotb_run: verdicts from the results XML, the wall-clock kill, VCD dumping, and the
commands it builds from cocotb's public configuration API (pinned by a golden file)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from fake_tools import FakeTools, check_golden, install, normalise

from hyperheurist.sim.cocotb_run import plan, run_cocotb

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
    assert not out.passed and out.timed_out and out.kind == "timeout" and out.results_xml is None
    assert out.message == "simulation killed at the 4 s wall-clock timeout (the design or its test hangs)"
    assert "# cocotb-test: cocotb-test timed out after " in (tmp_path / "build" / "COMMANDS").read_text()


def test_build_error_is_data(tmp_path: Path) -> None:
    bad = tmp_path / "bad.v"
    bad.write_text("module counter(input clk); wire x = ; endmodule\n")
    out = run_cocotb(sources=[bad], toplevel="counter", test_module="test_counter", test_dir=DATA,
                     build_dir=tmp_path / "b", timeout_s=30)
    assert not out.passed and out.kind == "build" and "bad.v" in out.message


@pytest.mark.parametrize("simulator, vcd", [("icarus", False), ("icarus", True), ("verilator", False),
                                            ("verilator", True)])
def test_commands_follow_cocotbs_makefiles(tmp_path: Path, simulator: str, vcd: bool) -> None:
    build, src = tmp_path / "build", tmp_path / "src" / "good.v"
    build.mkdir()
    src.parent.mkdir()
    src.write_text((DATA / "good.v").read_text())
    p = plan(simulator=simulator, sources=[src], toplevel="counter", test_module="test_counter",
             python_path=[DATA, build], build_dir=build, params={"WIDTH": "8"}, seed=3, vcd=vcd)
    lines = [f"$ {shlex.join(cmd)}" for cmd in p.build] + [f"env: {' '.join(sorted(p.build_env))}",
                                                            f"$ {shlex.join(p.test)}"]
    lines += [f"{k}={v}" for k, v in sorted(p.test_env.items()) if k.startswith(("COCOTB_", "TOPLEVEL_", "PYTEST_"))]
    text = normalise("\n".join(lines) + "\n", build, tmp_path)
    check_golden(f"cocotb-{simulator}{'-vcd' if vcd else ''}.txt", re.sub(r"-j \d+", "-j <cores>", text))
    assert p.test_env["PYTHONPATH"].split(":")[:2] == [str(DATA), str(build)]  # the test module's folder first
    assert p.test_env["GPI_USERS"].endswith(",initialize")  # libpython;cocotb's Python entry point


def test_a_failing_build_step_is_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fakes: FakeTools = install(tmp_path, monkeypatch)
    fakes.rule("verilator", outputs=False)  # no Vtop.mk: the make step fails
    out = _run(tmp_path, "good.v", simulator="verilator")
    assert not out.passed and out.kind == "build" and out.message.startswith("build failed: make")
    assert [r.tool for r in fakes.records(tmp_path / "build")] == ["verilator"]


def test_each_test_is_read_by_name_and_result(tmp_path: Path) -> None:
    ok = _run(tmp_path, "good.v")
    assert [(c["name"], c["result"], c["message"]) for c in ok.cases] == [("counts_and_wraps", "passed", "")]
    bad = _run(tmp_path, "reset_polarity.v")
    assert [(c["name"], c["result"]) for c in bad.cases] == [("counts_and_wraps", "failed")]
    assert bad.cases[0]["message"] and bad.cases[0]["time_s"] >= 0


# A cocotb test module that reports which of the installed pytest plugins were imported in the simulator, and
# fails one assert (its message shows whether cocotb's assertion rewriting still ran).
PLUGIN_PROBE = '''
import sys

import cocotb


@cocotb.test()
async def no_pytest_plugin_is_loaded(dut):
    loaded = sorted(m for m in {modules!r} if m in sys.modules)
    assert not loaded, f"pytest plugins imported in the simulator: {{loaded}}"


@cocotb.test()
async def asserts_are_still_rewritten(dut):
    width = 2
    assert width == 3
'''


def test_installed_pytest_plugins_stay_out_of_the_simulator(tmp_path: Path) -> None:
    """cocotb's assertion rewriting builds a pytest Config, which would import every installed pytest plugin
    (entry points ``pytest11``: this environment's xdist, hypothesis, anyio ...) into the simulator: code the
    test never asked for, and ~20% of a short cocotb run. The rewriting itself still works without them."""
    from importlib.metadata import entry_points

    modules = sorted({ep.value.split(":")[0] for ep in entry_points(group="pytest11")})
    assert modules, "no pytest plugin installed: this test cannot see one being loaded"
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_probe.py").write_text(PLUGIN_PROBE.format(modules=modules))
    out = run_cocotb(sources=[DATA / "good.v"], toplevel="counter", test_module="test_probe", test_dir=tests,
                     build_dir=tmp_path / "build", timeout_s=60)
    cases = {c["name"]: c for c in out.cases}
    assert cases["no_pytest_plugin_is_loaded"]["result"] == "passed", cases["no_pytest_plugin_is_loaded"]["message"]
    assert cases["asserts_are_still_rewritten"]["result"] == "failed"
    assert "assert 2 == 3" in cases["asserts_are_still_rewritten"]["message"], cases
