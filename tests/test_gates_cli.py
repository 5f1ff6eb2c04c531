"""``hh gate``: exit codes 0/1/2/3, --junit, --json; and the safety gate's text checks (no tools)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from cli_inproc import hh_in_process

from hyperheurist.candidate import Candidate
from hyperheurist.config import Limits
from hyperheurist.gates.safety import check_safety
from hyperheurist.sim.stimulus import StimPort, vectors

DATA = Path(__file__).parent / "data" / "gates" / "alu"
# every `hh gate` here is cli.main in this process: its exit code, JSON, JUnit file and message are what is tested


@pytest.mark.tools
def test_exit_0_json_and_junit(tmp_path: Path) -> None:
    junit = tmp_path / "gates.xml"
    out = hh_in_process("gate", str(DATA / "design.yaml"), str(DATA / "good.v"), "--json", "--junit", str(junit))
    assert out.returncode == 0, out.stderr
    verdict = json.loads(out.stdout)
    assert verdict["passed"] is True and len(verdict["results"]) == 7
    cases = ET.parse(junit).getroot().findall(".//testcase")
    assert [c.get("name") for c in cases] == ["safety", "compile", "structure", "simulation", "equivalence",
                                              "synthesis", "netlist_sim", "directed"]  # the last: the cocotb test
    assert not ET.parse(junit).getroot().findall(".//failure")


@pytest.mark.tools
def test_exit_1_names_gate_and_reason(tmp_path: Path) -> None:
    junit = tmp_path / "gates.xml"
    out = hh_in_process("gate", str(DATA / "design.yaml"), str(DATA / "latch.v"), "--junit", str(junit))
    assert out.returncode == 1
    assert "structure gate" in out.stderr and "inferred latch" in out.stderr
    root = ET.parse(junit).getroot()
    assert len(root.findall(".//failure")) == 1 and len(root.findall(".//skipped")) == 4


def test_exit_2_bad_usage(tmp_path: Path) -> None:
    assert hh_in_process("gate", str(tmp_path / "missing.yaml"), str(DATA / "good.v")).returncode == 2
    assert hh_in_process("gate", str(DATA / "design.yaml"), str(tmp_path / "missing.v")).returncode == 2
    assert hh_in_process("gate", str(DATA / "design.yaml")).returncode == 2


@pytest.mark.tools
def test_exit_3_infrastructure(tmp_path: Path) -> None:
    out = hh_in_process("gate", str(DATA / "design.yaml"), str(DATA / "good.v"),
                        env={"HH_IVERILOG": str(tmp_path / "none")})
    assert out.returncode == 3 and "HH_IVERILOG" in out.stderr


def _safety(text: str, name: str = "d.v", extra: tuple = ()) -> str:
    res = check_safety(Candidate(files=((name, text), *extra), top="d"), Limits())
    return "" if res.passed else res.message


@pytest.mark.parametrize("text, words", [
    ("module d; initial $system(\"ls\"); endmodule", ["$system", "d.v:1"]),
    ("module d;\n always @* $fdisplay(1, \"x\");\nendmodule", ["$fdisplay", "d.v:2"]),
    ("module d; initial $dumpfile(\"x.vcd\"); endmodule", ["$dumpfile"]),
    ("module d; initial $c(\"system(0);\"); endmodule", ["$c", "C++"]),
    ("module d; reg [7:0] m[0:3]; initial $readmemh(\"/etc/shadow\", m); endmodule", ["$readmemh", "/etc/shadow"]),
    ("`define T(x) $``x\nmodule d; initial `T(system)(\"ls\"); endmodule", ["token pasting"]),
    ("`systemc_header\n#include <stdlib.h>\n`verilog\nmodule d; endmodule", ["systemc_header"]),
    ("module d; // synopsys translate_off\nendmodule", ["translate_off"]),
    ("module d; /* synthesis translate_off */\nendmodule", ["translate_off"]),
    ("module d; // translate_off\nendmodule", ["translate_off"]),
    ("module hhref_d; endmodule", ["reserved"]),
])
def test_safety_rejects(text: str, words: list[str]) -> None:
    msg = _safety(text)
    assert msg, text
    for w in words:
        assert w in msg, msg


def test_safety_allows_benign_text() -> None:
    ok = ("module d(input a, output y); // $system in a comment is fine\n"
          "  assign y = a; initial if (0) $display(\"$fopen in a string is fine\");\n"
          "  reg [7:0] m [0:3]; initial $readmemh(\"rom.hex\", m);\nendmodule\n")
    assert _safety(ok, extra=(("rom.hex", "00\n"),)) == ""
    # a comment that mentions a pragma is none (before: refused as one)
    assert _safety("module d; // we never use translate_off here\nendmodule") == ""


def test_safety_limits() -> None:
    big = "module d; endmodule\n" + "//" + "x" * 2000
    res = check_safety(Candidate(files=(("d.v", big),), top="d"), Limits(max_file_bytes=1000))
    assert not res.passed and "max_file_bytes" in res.message
    many = tuple((f"f{i}.v", "module d; endmodule") for i in range(3))
    assert "max_files" in check_safety(Candidate(files=many, top="d"), Limits(max_files=2)).message
    assert "unsafe file name" in _safety("module d; endmodule", name="../x.v")
    assert "binary" in _safety("module d;\x00 endmodule")


def test_stimulus_is_seeded_and_covers_corners() -> None:
    ports = [StimPort("a", 8), StimPort("b", 3)]
    v1, v2, v3 = vectors(ports, 100, 5), vectors(ports, 100, 5), vectors(ports, 100, 6)
    assert v1 == v2 and v1 != v3
    assert {"a": 0, "b": 0} in v1 and {"a": 255, "b": 7} in v1
    assert all(0 <= v["a"] < 256 and 0 <= v["b"] < 8 for v in v1)
