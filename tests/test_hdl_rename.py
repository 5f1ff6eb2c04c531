"""hdl.rename: declared modules and packages renamed token by token; the renamed copy compiles beside the original."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperheurist.hdl.rename import declared_names, prefix_names
from hyperheurist.runner import run_tool

TEXT = r"""// adder: the comment keeps its word
package pk; localparam int W = 4; endpackage
module adder #(parameter W = pk::W) (input [W-1:0] a, b, output [W:0] y);
  assign y = a + b;
  initial if (0) $display("adder %0d", W);
endmodule
module top(input [3:0] a, b, output [4:0] y, output [4:0] z);
  adder u_adder(.a(a), .b(b), .y(y));
  \adder  escaped(.a(a), .b(b), .y(z));
  wire adder_x, x_adder;
endmodule
"""


def test_only_identifier_tokens_naming_a_declared_module_change() -> None:
    names = declared_names(TEXT)
    assert names == ["pk", "adder", "top"]
    out = prefix_names(TEXT, set(names), "hhref_")
    assert out.count("hhref_") == 6  # pk twice, adder three times (one escaped), top once
    assert "// adder: the comment" in out and '$display("adder %0d"' in out
    assert "u_adder" in out and "wire adder_x, x_adder;" in out and "\\hhref_adder  escaped" in out
    assert "hhref_pk::W" in out and "module hhref_top(" in out
    assert prefix_names("módulo: ü\nmodule adder; endmodule", {"adder"}, "p_").endswith("module p_adder; endmodule")


@pytest.mark.tools
def test_the_renamed_copy_compiles_beside_the_original(tmp_path: Path) -> None:
    (tmp_path / "a.sv").write_text(TEXT)
    (tmp_path / "b.sv").write_text(prefix_names(TEXT, set(declared_names(TEXT)), "hhref_"))
    res = run_tool(["iverilog", "-g2012", "-o", "x.vvp", "a.sv", "b.sv"], name="iverilog", log_dir=tmp_path / "logs",
                   timeout_s=60, cwd=tmp_path, sandbox="off")
    assert res.ok, res.tail()
    res = run_tool(["iverilog", "-g2012", "-o", "x.vvp", "a.sv", "a.sv"], name="iverilog", log_dir=tmp_path / "logs",
                   timeout_s=60, cwd=tmp_path, sandbox="off")
    assert not res.ok  # the same modules twice: what the rename is for
