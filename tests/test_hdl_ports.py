"""hdl.ports and hdl.elaborate: exact widths from elaboration (after overrides), parameters, the structure
gate's view, and the sandboxed child that computes it for untrusted text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperheurist.hdl.elaborate import CHILD_ARGV, CHILD_READABLE, Elaborated, elaborated, instance_paths
from hyperheurist.hdl.parse import parse_files
from hyperheurist.hdl.ports import ElaborationError, Parameter, Port, read_module
from hyperheurist.runner import run_tool

RTL = """module leaf #(parameter N = 2) (input [N-1:0] i, output o); assign o = ^i; endmodule
module m #(parameter W = 4, parameter logic [7:0] K = 8'hA5) (
  input [W-1:0] a, output signed [2*W:0] y, input real r, input logic [7:0] d [0:3], output o);
  localparam L = W * 2;
  wire [L-1:0] w = {a, a};
  logic [1:0][3:0] pk;
  assign y = $signed(w);
  leaf #(.N(L)) u_leaf(.i(w), .o(o));
  initial pk = 0;
  final $display("done");
  always @(a) #1 pk[0] = a[3:0];
endmodule
"""


def test_widths_and_parameters_come_from_elaboration(tmp_path: Path) -> None:
    (tmp_path / "m.sv").write_text(RTL)
    view = read_module(parse_files([tmp_path / "m.sv"]), "m", params={"W": "6"})
    ports = {p.name: p for p in view.ports}
    assert ports["a"] == Port("a", "input", 6, False, "m.sv:3", "logic[5:0]")
    assert ports["y"] == Port("y", "output", 13, True, "m.sv:3", "logic signed[12:0]")
    assert not ports["r"].integral and ports["d"].unpacked and ports["d"].width == 0
    assert view.parameters == (Parameter("W", "6", 32, False), Parameter("K", "8'd165", 8, False),
                               Parameter("L", "12", 32, True))
    assert view.widths["w"] == 12 and view.widths["pk"] == 8
    with pytest.raises(ElaborationError, match=r"top module 'x' not found \(modules: leaf, m\)"):
        read_module(parse_files([tmp_path / "m.sv"]), "x")
    (tmp_path / "e.sv").write_text("module e (input a, output b);\n  assign b = nope;\nendmodule\n")
    with pytest.raises(ElaborationError, match=r"e\.sv:2:\d+: error: use of undeclared identifier 'nope'"):
        read_module(parse_files([tmp_path / "e.sv"]), "e")


def test_structure_view_names_simulation_only_constructs(tmp_path: Path) -> None:
    (tmp_path / "m.sv").write_text(RTL)
    el = elaborated([tmp_path / "m.sv"], "m", {"W": "5"})
    assert el.top_found and el.modules == ["leaf", "m"] and not el.errors
    assert [p.width for p in el.ports] == [5, 11, 64, 0, 1]
    assert el.timing == ["m.sv:9: initial block", "m.sv:10: final block", "m.sv:11: # delay"]
    assert instance_paths([tmp_path / "m.sv"], "leaf") == ["m.u_leaf"]
    assert Elaborated.from_json(el.to_json()) == el


@pytest.mark.tools
def test_the_sandboxed_child_reports_the_same_view(tmp_path: Path) -> None:
    (tmp_path / "m.sv").write_text(RTL)
    res = run_tool([*CHILD_ARGV, "m", json.dumps({"W": "3"}), "m.sv"], name="pyslang", log_dir=tmp_path / "logs",
                   timeout_s=60, cwd=tmp_path, readable=[CHILD_READABLE])
    assert res.ok, res.tail()
    assert Elaborated.from_json(res.stdout) == elaborated([tmp_path / "m.sv"], "m", {"W": "3"})


def test_top_widths_are_exact_where_text_would_need_arithmetic() -> None:
    from hyperheurist.hdl.parse import parse
    from hyperheurist.hdl.ports import top_widths

    text = ("module t #(parameter N = 3) (input [2**N-1:0] a, output reg [N:0] c);\n"
            "  localparam M = N + 2; wire [M*2-1:0] w; integer i; logic [3:0][1:0] p;\nendmodule\n")
    assert top_widths([parse(text)]) == {"a": 8, "c": 4, "w": 10, "i": 32, "p": 8}
