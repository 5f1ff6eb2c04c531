"""JUnit XML on every exit code of ``hh gate`` (0, 1, 2, 3), parseable whatever bytes a message holds."""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from cli_inproc import hh_in_process

from hyperheurist.gates.junit import junit_error_xml, junit_xml, xml_safe
from hyperheurist.gates.result import GateReport
from hyperheurist.stages.model import StageId, StageResult, skipped

DATA = Path(__file__).parent / "data" / "gates" / "alu"


def hh(*args: str, env: dict[str, str | None] | None = None) -> subprocess.CompletedProcess[str]:
    """cli.main in this process: the exit code and the JUnit file it writes are what these tests check."""
    return hh_in_process(*args, env=env)


def _cases(path: Path) -> list[ET.Element]:
    return ET.parse(path).getroot().findall(".//testcase")


@pytest.mark.tools
@pytest.mark.parametrize("rtl, code", [("good.v", 0), ("latch.v", 1)])
def test_exit_0_and_1_give_one_case_per_gate(tmp_path: Path, rtl: str, code: int) -> None:
    xml = tmp_path / "gate.xml"
    res = hh("gate", str(DATA / "design.yaml"), str(DATA / rtl), "--junit", str(xml))
    assert res.returncode == code, res.stderr
    cases = [c for c in _cases(xml) if c.get("classname", "").startswith("hh.gate.")]  # cocotb's tests have their own
    assert [c.get("name") for c in cases] == ["safety", "compile", "structure", "simulation", "equivalence",
                                              "synthesis", "netlist_sim"]
    assert len(ET.parse(xml).getroot().findall(".//failure")) == code


@pytest.mark.parametrize("args", [
    ("{missing}", "good.v"),                 # no design.yaml
    ("design.yaml", "{missing}"),             # no RTL file
    ("design.yaml",),                         # no files and no sources:
])
def test_exit_2_writes_an_error_case(tmp_path: Path, args: tuple[str, ...]) -> None:
    xml = tmp_path / "gate.xml"
    argv = [str(tmp_path / "nope.v") if a == "{missing}" else str(DATA / a) for a in args]
    res = hh("gate", *argv, "--junit", str(xml))
    assert res.returncode == 2, res.stderr
    root = ET.parse(xml).getroot()
    err = root.find(".//error")
    assert err is not None and "exit 2" in err.get("type") and err.get("message") in res.stderr
    assert root.find("testsuite").get("errors") == "1"


@pytest.mark.tools
def test_exit_3_writes_an_error_case(tmp_path: Path) -> None:
    xml = tmp_path / "gate.xml"
    res = hh("gate", str(DATA / "design.yaml"), str(DATA / "good.v"), "--junit", str(xml),
             env={"HH_IVERILOG": str(tmp_path / "none")})
    assert res.returncode == 3, res.stderr
    err = ET.parse(xml).getroot().find(".//error")
    assert err is not None and err.get("type") == "infrastructure (exit 3)" and "HH_IVERILOG" in err.get("message")
    assert ET.parse(xml).getroot().find("testsuite").get("name") == "alu"
    import re
    for token in re.findall(r"(/\S+)", res.stderr):  # every path the message names still exists
        assert Path(token.rstrip(").,;:")).exists() or token.startswith(str(tmp_path / "none")), token


def test_control_bytes_in_a_file_name_keep_the_xml_parseable(tmp_path: Path) -> None:
    xml = tmp_path / "gate.xml"
    res = hh("gate", str(DATA / "design.yaml"), str(tmp_path / "bad\x01\x1b[31m.v"), "--junit", str(xml))
    assert res.returncode == 2
    msg = ET.parse(xml).getroot().find(".//error").get("message")
    assert "\x01" not in msg and "\x1b" not in msg and "\ufffd" in msg


def test_xml_safe_covers_every_forbidden_character() -> None:
    nasty = "".join(chr(c) for c in range(0x20)) + "\ud800\udcff\ufffe ok \u00e9\U0001F600"
    report = GateReport((StageResult(StageId.COMPILE, False, nasty), skipped(StageId.STRUCTURE, nasty)))
    for text in (junit_xml(report, "s\x00uite"), junit_error_xml("s", nasty, 3)):
        root = ET.fromstring(text.encode("utf-8", errors="strict"))
        assert root.find(".//testsuite") is not None or root.tag == "testsuites"
    cleaned = xml_safe(nasty)
    assert all(ch in cleaned for ch in "\t\n\r") and " ok \u00e9\U0001F600" in cleaned
    assert not any(ord(ch) < 0x20 and ch not in "\t\n\r" for ch in cleaned)


SECOND_TEST = '''

@cocotb.test()
async def holds_without_enable(dut):
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    await reset(dut)
    await ClockCycles(dut.clk, 5)
    await FallingEdge(dut.clk)
    assert int(dut.count.value) == 0, f"count moved without en: {dut.count.value}"
'''


@pytest.mark.tools
@pytest.mark.parametrize("rtl, code", [("good.v", 0), ("reset_polarity.v", 1)])
def test_cocotb_tests_are_listed_by_name(tmp_path: Path, rtl: str, code: int) -> None:
    """A cocotb module of two tests: the gate line names both with their results, and the JUnit file has
    one case per cocotb test (with the failure of the one that failed)."""
    import shutil
    work = tmp_path / "counter"
    shutil.copytree(DATA.parent / "counter", work)
    (work / "test_counter.py").write_text((work / "test_counter.py").read_text() + SECOND_TEST)
    xml = tmp_path / "gate.xml"
    res = hh("gate", str(work / "design.yaml"), str(work / rtl), "--junit", str(xml),
             "--set", "verification.differential.enabled=false")  # else the differential test fails first
    assert res.returncode == code, res.stdout + res.stderr
    cases = [c for c in _cases(xml) if c.get("classname") == "hh.cocotb.counter.simulation"]
    assert [c.get("name") for c in cases] == ["counts_and_wraps", "holds_without_enable"]
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    suite = ET.parse(xml).getroot().find("testsuite")
    assert suite.get("tests") == str(len(_cases(xml)))
    if code == 0:
        assert failed == [] and suite.get("failures") == "0"
        assert "cocotb: 2 tests, counts_and_wraps passed, holds_without_enable passed" in res.stdout
    else:
        assert "counts_and_wraps" in failed and suite.get("failures") == str(1 + len(failed))
        msg = next(c for c in cases if c.get("name") == "counts_and_wraps").find("failure").get("message")
        assert msg, "the failing test's assertion is in the case"
        assert "counts_and_wraps FAILED, holds_without_enable passed" in res.stdout
