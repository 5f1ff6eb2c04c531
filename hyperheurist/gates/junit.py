"""JUnit XML for CI: one test case per gate (failed, passed or skipped), then one per cocotb test a gate ran
(``hh.cocotb.<suite>.<gate>``, named as in cocotb's results XML), or one error case for exit 2/3.

Every exit code leaves a parseable file: a usage/config error or an infrastructure fault is an
``<error>`` (not a ``<failure>``: the design was not judged), and text from tools is cleaned of
bytes XML 1.0 cannot carry (control characters, lone surrogates from undecodable input).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from ..errors import EXIT_INFRA, EXIT_USAGE
from ..jsonio import write_text_atomic
from ..sim.cocotb_run import CocotbCase
from ..stages.model import StageResult
from .result import GateReport

_NOT_XML = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
ERROR_KINDS = {EXIT_USAGE: "usage-or-config", EXIT_INFRA: "infrastructure"}


def xml_safe(text: str) -> str:
    """``text`` without the characters XML 1.0 forbids (each becomes U+FFFD, so the reader sees one was there)."""
    return _NOT_XML.sub("\ufffd", str(text))


def _suite(suite: str, tests: int, failures: int, skipped: int, errors: int,
           time_s: float) -> tuple[ET.Element, ET.Element]:
    root = ET.Element("testsuites")
    ts = ET.SubElement(root, "testsuite", name=xml_safe(suite), tests=str(tests), failures=str(failures),
                       skipped=str(skipped), errors=str(errors), time=f"{time_s:.3f}")
    return root, ts


def _text(root: ET.Element) -> str:
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def cocotb_cases(r: StageResult) -> list[CocotbCase]:
    """The cocotb tests a gate ran (``details.cocotb.cases``, from cocotb's results XML), in order; a case
    without a name is left out."""
    info = r.details.get("cocotb")
    cases = info.get("cases") if isinstance(info, dict) else None
    if not isinstance(cases, list):
        return []
    return [CocotbCase(name=str(c["name"]), result=str(c.get("result") or ""), time_s=float(c.get("time_s") or 0),
                       message=str(c.get("message") or ""))
            for c in cases if isinstance(c, dict) and c.get("name")]


def _cocotb_case(ts: ET.Element, suite: str, gate: str, c: CocotbCase) -> None:
    """One ``<testcase>`` per cocotb test, named as cocotb names it, under ``hh.cocotb.<suite>.<gate>``."""
    case = ET.SubElement(ts, "testcase", classname=xml_safe(f"hh.cocotb.{suite}.{gate}"),
                         name=xml_safe(c["name"]), time=f"{c['time_s']:.3f}")
    msg = xml_safe(c["message"])
    if c["result"] == "failed":
        ET.SubElement(case, "failure", message=msg or "failed", type="cocotb-test").text = msg
    elif c["result"] == "skipped":
        ET.SubElement(case, "skipped", message=msg)


def junit_xml(report: GateReport, suite: str) -> str:
    """One case per gate, then one per cocotb test a gate ran (so CI lists each test by name)."""
    tests = [(r, c) for r in report.results for c in cocotb_cases(r)]
    failures = sum(1 for r in report.results if not r.passed and not r.skipped) + \
        sum(1 for _, c in tests if c["result"] == "failed")
    skips = sum(1 for r in report.results if r.skipped) + sum(1 for _, c in tests if c["result"] == "skipped")
    root, ts = _suite(suite, len(report.results) + len(tests), failures, skips, 0,
                      sum(r.wall_s for r in report.results))
    for r in report.results:
        case = ET.SubElement(ts, "testcase", classname=xml_safe(f"hh.gate.{suite}"), name=str(r.gate),
                             time=f"{r.wall_s:.3f}")
        msg = xml_safe(r.message)
        if r.skipped:
            ET.SubElement(case, "skipped", message=msg)
        elif not r.passed:
            node = ET.SubElement(case, "failure", message=msg, type=f"{r.gate}-gate")
            node.text = msg
        else:
            ET.SubElement(case, "system-out").text = msg
    for r, c in tests:
        _cocotb_case(ts, suite, str(r.gate), c)
    return _text(root)


def junit_error_xml(suite: str, message: str, exit_code: int) -> str:
    """The design could not be judged (exit 2 or 3): one test case with an ``<error>``."""
    root, ts = _suite(suite, 1, 0, 0, 1, 0.0)
    case = ET.SubElement(ts, "testcase", classname=xml_safe(f"hh.gate.{suite}"), name="hh-gate", time="0.000")
    kind = ERROR_KINDS.get(exit_code, "infrastructure")
    node = ET.SubElement(case, "error", message=xml_safe(message), type=f"{kind} (exit {exit_code})")
    node.text = xml_safe(message)
    return _text(root)


def write_junit(path: Path, report: GateReport, suite: str) -> None:
    write_text_atomic(Path(path), junit_xml(report, suite))


def write_junit_error(path: Path, suite: str, message: str, exit_code: int) -> None:
    write_text_atomic(Path(path), junit_error_xml(suite, message, exit_code))
