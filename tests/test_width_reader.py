"""One width reader (``hdl.ports.module_widths``): the moves read signal widths from pyslang's elaboration, never
from declaration text by regex (issue 31). The regex reader of the register moves called a parameterised
register (``reg [W-1:0]``) of unknown width, an ``integer`` 1 bit, and skipped ``b`` of ``input [7:0] a, b``."""

from __future__ import annotations

import random

from hyperheurist.hdl.ports import module_widths, top_widths
from hyperheurist.search.moves.registers import DropDatapathReset
from hyperheurist.search.moves.verilog import parse
from hyperheurist.search.state import MoveContext

CTX = MoveContext(design=None, flow=None)  # type: ignore[arg-type]  # RTL moves read only the text

SUB = """module sub #(parameter W = 4)(input [W-1:0] a, b, output reg [W:0] y);
  integer i;
  always @* y = a + b;
endmodule
module top(input [7:0] x, output [4:0] z);
  wire [2:0] q;
  sub u(.a(x[3:0]), .b(x[7:4]), .y(z));
endmodule
"""

PIPE = """module pipe #(parameter W = 8)(input clk, input rst_n, input [W-1:0] a, b, output [2*W-1:0] y);
  reg [W-1:0] a1, b1;
  reg [2*W-1:0] m2;
  always @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      a1 <= 0;
      b1 <= 0;
      m2 <= 0;
    end else begin
      a1 <= a;
      b1 <= b;
      m2 <= a1 * b1;
    end
  end
  assign y = m2;
endmodule
"""


def test_every_module_is_read_as_elaborated_also_one_another_instantiates() -> None:
    tree = parse(SUB)
    assert module_widths([tree], every=True) == {"sub": {"a": 4, "b": 4, "y": 5, "i": 32},
                                                 "top": {"x": 8, "z": 5, "q": 3}}
    assert module_widths([tree]) == {"top": {"x": 8, "z": 5, "q": 3}}  # the file's tops only
    assert top_widths([tree]) == {"x": 8, "z": 5, "q": 3}


def test_a_parameterised_datapath_register_is_a_register_move_site() -> None:
    sites = DropDatapathReset().sites(PIPE, parse(PIPE), CTX, random.Random(0))
    assert sites, "the regex reader called [W-1:0] an unknown width and offered no site"
