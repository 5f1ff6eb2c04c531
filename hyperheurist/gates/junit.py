"""JUnit XML for CI: one test case per gate (failed, passed or skipped)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from ..jsonio import write_text_atomic
from .result import GateReport


def junit_xml(report: GateReport, suite: str) -> str:
    failures = sum(1 for r in report.results if not r.passed and not r.skipped)
    skips = sum(1 for r in report.results if r.skipped)
    root = ET.Element("testsuites")
    ts = ET.SubElement(root, "testsuite", name=suite, tests=str(len(report.results)), failures=str(failures),
                       skipped=str(skips), errors="0", time=f"{sum(r.wall_s for r in report.results):.3f}")
    for r in report.results:
        case = ET.SubElement(ts, "testcase", classname=f"hh.gate.{suite}", name=r.gate, time=f"{r.wall_s:.3f}")
        if r.skipped:
            ET.SubElement(case, "skipped", message=r.message)
        elif not r.passed:
            node = ET.SubElement(case, "failure", message=r.message, type=f"{r.gate}-gate")
            node.text = r.message
        else:
            ET.SubElement(case, "system-out").text = r.message
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_junit(path: Path, report: GateReport, suite: str) -> None:
    write_text_atomic(Path(path), junit_xml(report, suite))
