"""Synthesis and messages on a user's files: the OpenSTA-safe netlist, Yosys' own error line, paths
that exist after exit, a relative --workdir."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_inproc import hh_in_process

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.llm import prompts
from hyperheurist.ppa.synth import first_error

pytestmark = pytest.mark.tools

DESIGN = """name: addr_calc
top: addr_calc
spec: spec.md
interface:
  ports:
    - {name: base, dir: input, width: 8}
    - {name: idx, dir: input, width: 4}
    - {name: addr, dir: output, width: 12}
    - {name: flags, dir: output, width: 6}
verification:
  reference: ref.v
"""
# several output bits are the same net or the same constant: Yosys writes `assign { a[11:8], a[3:0] } = ...`
# without -simple-lhs, which OpenSTA 2019 rejects ("syntax error, unexpected '{'")
SHARED_BITS = """module addr_calc (input [7:0] base, input [3:0] idx, output [11:0] addr, output [5:0] flags);
  assign addr = {base[7:4], base[3:0] ^ idx, idx[2], 2'b00, idx[2]};
  assign flags = {idx[3], base[0] & idx[1], idx[3], idx[3], base[1] | idx[0], 1'b0};
endmodule
"""
SYNTAX_ERROR = """module addr_calc (input [7:0] base, input [3:0] idx, output [11:0] addr, output [5:0] flags);
  assign flags = 6'd0;
  assign addr = base +;
endmodule
"""
# Icarus and Verilator take an ANSI-header package import; Yosys 0.23 does not (its error has file:line)
HEADER_IMPORT = """package p;
  parameter W = 4;
endpackage
module addr_calc import p::*; (input [7:0] base, input [3:0] idx, output [11:0] addr, output [5:0] flags);
  assign addr = {base, idx};
  assign flags = {idx[1:0], idx};
endmodule
"""

# `hh ppa` and `hh gate` are cli.main in this process: the exit code, Yosys' error line, the netlist and the paths
# a message names (the temporary stage folder is gone when the call returns) are what is tested


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    (tmp_path / "design.yaml").write_text(DESIGN)
    (tmp_path / "spec.md").write_text("An address calculator.\n")
    (tmp_path / "ref.v").write_text(SHARED_BITS)
    (tmp_path / "bad.v").write_text(SYNTAX_ERROR)
    (tmp_path / "imp.sv").write_text(HEADER_IMPORT)
    return tmp_path


def test_outputs_sharing_bits_are_timed_by_opensta(proj: Path) -> None:
    res = hh_in_process("ppa", "design.yaml", "ref.v", "--json", "--no-cache", "--workdir", "work", cwd=proj)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["delay_ns"] > 0
    netlist = next((proj / "work").glob("*-synthesis/netlist.v")).read_text()
    assert "assign addr[11:8] = base[7:4];" in netlist  # the bits Yosys would have concatenated
    assert not re.search(r"^\s*assign\s*\{", netlist, re.M)


def test_yosys_error_line_names_the_users_file_and_the_log_exists(proj: Path) -> None:
    res = hh_in_process("ppa", "design.yaml", "bad.v", "--workdir", "rel/work", cwd=proj)
    assert res.returncode == 1
    assert re.search(r"bad\.v:3: ERROR: syntax error", res.stderr), res.stderr
    for path in re.findall(r"(/\S+?\.log)", res.stderr):
        assert Path(path).is_file(), path
    assert (proj / "rel" / "work").is_dir()  # a relative --workdir is relative to the cwd


def test_without_workdir_no_message_points_into_a_deleted_folder(proj: Path) -> None:
    res = hh_in_process("ppa", "design.yaml", "bad.v", cwd=proj)
    assert res.returncode == 1 and "bad.v:3: ERROR" in res.stderr
    assert "--workdir" in res.stderr
    for token in re.findall(r"(/\S+)", res.stderr):
        assert Path(token.rstrip(").,")).exists(), token


def test_structure_gate_and_repair_prompt_carry_yosys_file_line(proj: Path) -> None:
    res = hh_in_process("gate", "design.yaml", "imp.sv", "--json", cwd=proj)
    assert res.returncode == 1
    verdict = json.loads(res.stdout)
    assert verdict["failed_gate"] == "structure"
    assert re.search(r"imp\.sv:4: syntax error", verdict["message"]), verdict["message"]
    design = load_design(proj / "design.yaml")
    cand = Candidate.from_text(HEADER_IMPORT, "addr_calc", name="imp.sv")
    text = "\n".join(m["content"] for m in prompts.repair_messages(design, cand, "structure", verdict["message"], None))
    assert "imp.sv:4: syntax error" in text


def test_first_error_prefers_the_located_line() -> None:
    log = ("-- Parsing `src/x.v' --\nERROR: something generic\n")
    assert first_error(log) == "ERROR: something generic"
    log = "noise\n/deep/run dir/src/x.v:17: ERROR: syntax error, unexpected ';'\nERROR: generic\n"
    assert first_error(log) == "x.v:17: ERROR: syntax error, unexpected ';'"
