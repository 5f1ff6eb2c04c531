"""Combinational rewrites from semantics: truth-table resynthesis (both directions) and bit-level loops
lifted to word operators. Each child the moves offer is proven equal to its parent by the formal
engines (a real proof, at small widths); the negative cases get no offer at all."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.recipe import Recipe
from hyperheurist.rewrite.interface import module_interface
from hyperheurist.rewrite.prove import ProofTask, prove_rewrite
from hyperheurist.search.moves import LoopLift, TruthTable, rtl_moves
from hyperheurist.search.moves.rtl import RtlMove
from hyperheurist.search.state import MoveContext, State

CTX = MoveContext(design=None, flow=None)  # type: ignore[arg-type]

DECODERS = {
    "sized_literal": "module t(input [2:0] s, output [7:0] y);\n  assign y = 8'd1 << s;\nendmodule\n",
    "concatenation": "module t(input [2:0] s, output [7:0] y);\n  assign y = {7'b0, 1'b1} << s;\nendmodule\n",
    "through_a_wire": "module t(input [2:0] s, output [7:0] y);\n  wire [7:0] one = 8'h01;\n"
                      "  wire [7:0] sh = one << s;\n  assign y = sh;\nendmodule\n",
}
AFFINE = """module t(input [3:0] sel, output [7:0] y);
  assign y = 8'd3 + 8'd5 * sel;
endmodule
"""
CASE_TABLE = """module t(input [2:0] sel, output reg [7:0] y);
  always @* begin
    case (sel)
      3'd0: y = 8'd7;  3'd1: y = 8'd10; 3'd2: y = 8'd13; 3'd3: y = 8'd16;
      3'd4: y = 8'd19; 3'd5: y = 8'd22; 3'd6: y = 8'd25; default: y = 8'd28;
    endcase
  end
endmodule
"""
LOOP_DECODER = """module t(input [2:0] s, output reg [7:0] y);
  integer i;
  always @* for (i = 0; i < 8; i = i + 1) y[i] = (s == i);
endmodule
"""
WIDE = """module t(input [4:0] a, input [4:0] b, output [5:0] y);
  assign y = a + b;
endmodule
"""
BORROW = """module t(input [5:0] a, input [5:0] b, output reg [5:0] d, output reg bo);
  integer i;
  reg [6:0] br;
  always @* begin
    br[0] = 1'b0;
    for (i = 0; i < 6; i = i + 1) begin
      d[i] = a[i] ^ b[i] ^ br[i];
      br[i + 1] = (~a[i] & b[i]) | (~(a[i] ^ b[i]) & br[i]);
    end
    bo = br[6];
  end
endmodule
"""
CARRY = """module t(input [5:0] a, input [5:0] b, input ci, output reg [5:0] s, output reg co);
  reg c;
  always @* begin
    c = ci;
    for (int k = 0; k < 6; k++) begin
      s[k] = a[k] ^ b[k] ^ c;
      c = (a[k] & b[k]) | (c & (a[k] ^ b[k]));
    end
    co = c;
  end
endmodule
"""
COMPARATOR = """module t(input [5:0] a, input [5:0] b, output reg gt, output reg lt, output reg eq);
  integer i;
  always @* begin
    gt = 1'b0; lt = 1'b0; eq = 1'b1;
    for (i = 5; i >= 0; i = i - 1) begin
      if (eq && a[i] && !b[i]) begin gt = 1'b1; eq = 1'b0; end
      else if (eq && !a[i] && b[i]) begin lt = 1'b1; eq = 1'b0; end
    end
  end
endmodule
"""
BIT_CHAIN = """module t(input [3:0] a, input [3:0] b, output eq, output ge);
  assign eq = (a[0] ~^ b[0]) & (a[1] ~^ b[1]) & (a[2] ~^ b[2]) & (a[3] ~^ b[3]);
  assign ge = (a[3] & ~b[3]) | ((a[3] ~^ b[3]) & ((a[2] & ~b[2]) | ((a[2] ~^ b[2]) &
              ((a[1] & ~b[1]) | ((a[1] ~^ b[1]) & (a[0] | ~b[0]))))));
endmodule
"""
NOT_AN_OPERATOR = """module t(input [5:0] a, input [5:0] b, output reg [5:0] y);
  integer i;
  always @* for (i = 0; i < 6; i = i + 1) y[i] = a[5 - i] & b[i];
endmodule
"""


def _children(move: RtlMove, text: str) -> list[str]:
    state = State(Candidate.from_text(text, "t"), Recipe())
    return [c.candidate.files[0][1] for c in move.neighbours(state, CTX, random.Random(0))]


def _proven(tmp_path: Path, parent: str, child: str) -> bool:
    v = prove_rewrite(ProofTask(parent, child, "t", module_interface(parent, "t")), tmp_path)
    assert v.kind in ("proven", "refuted"), v.summary()
    return v.kind == "proven"


def _all_proven(tmp_path: Path, move: RtlMove, text: str) -> list[str]:
    children = _children(move, text)
    assert children, f"{move.name} offers nothing"
    for i, child in enumerate(children):
        assert _proven(tmp_path / str(i), text, child), child
    return children


def test_the_moves_are_registered() -> None:
    names = {m.name for m in rtl_moves()}
    assert {"truth_table", "loop_lift"} <= names


@pytest.mark.tools
@pytest.mark.parametrize("form", sorted(DECODERS))
def test_a_shift_decoder_in_any_form_becomes_compares(tmp_path: Path, form: str) -> None:
    children = _all_proven(tmp_path, TruthTable(), DECODERS[form])
    # the bank of compares feeds y (a wire it no longer reads is dead logic, left for synthesis to drop)
    assert any(all(f"s == 3'h{i}" in c for i in range(8)) and "assign y = {hh_eg" in c for c in children), children


@pytest.mark.tools
def test_a_loop_decoder_becomes_a_shift(tmp_path: Path) -> None:
    children = _all_proven(tmp_path, TruthTable(), LOOP_DECODER)
    assert any("8'h1 << s" in c and "for" not in c for c in children), children


@pytest.mark.tools
def test_small_arithmetic_becomes_a_table(tmp_path: Path) -> None:
    children = _all_proven(tmp_path, TruthTable(), AFFINE)
    assert all("*" not in c.split("endmodule")[0].split("output [7:0] y);")[1] for c in children), children
    assert any("?" in c for c in children)  # the decision tree over sel's bits


@pytest.mark.tools
def test_a_case_table_becomes_arithmetic(tmp_path: Path) -> None:
    children = _all_proven(tmp_path, TruthTable(), CASE_TABLE)
    assert any("8'h3" in c and "case" not in c and "+" in c for c in children), children


def test_too_many_input_bits_is_no_table() -> None:
    assert _children(TruthTable(), WIDE) == []


@pytest.mark.tools
def test_a_ripple_borrow_loop_becomes_a_subtraction(tmp_path: Path) -> None:
    children = _all_proven(tmp_path, LoopLift(), BORROW)
    assert any("{1'h0, a} - {1'h0, b}" in c and "for" not in c for c in children), children
    assert any("d = a - b" in c and "bo = a < b" in c for c in children), children


@pytest.mark.tools
def test_a_ripple_carry_loop_becomes_an_addition(tmp_path: Path) -> None:
    children = _all_proven(tmp_path, LoopLift(), CARRY)
    assert any("{1'h0, a} + {1'h0, b}" in c and "ci}" in c and "for" not in c for c in children), children


@pytest.mark.tools
def test_a_bitwise_comparator_becomes_word_compares(tmp_path: Path) -> None:
    children = _all_proven(tmp_path, LoopLift(), COMPARATOR)
    assert any("eq = a == b" in c and "lt = a < b" in c and "gt = a > b" in c for c in children), children


@pytest.mark.tools
def test_a_comparator_of_bit_selects_becomes_word_compares(tmp_path: Path) -> None:
    children = _all_proven(tmp_path, LoopLift(), BIT_CHAIN)
    assert any("assign eq = a == b;" in c for c in children), children
    assert any("assign ge = a >= b;" in c for c in children), children


def test_a_loop_that_is_no_word_operator_is_left_alone() -> None:
    assert _children(LoopLift(), NOT_AN_OPERATOR) == []


@pytest.mark.tools
def test_a_wrong_lift_would_be_refuted(tmp_path: Path) -> None:
    """The proofs above can fail: the same block lifted to the wrong operand order is refuted."""
    children = _children(LoopLift(), BORROW)
    wrong = next(c for c in children if "d = a - b" in c).replace("d = a - b", "d = b - a")
    assert not _proven(tmp_path, BORROW, wrong)


def test_loop_lift_corner_points_of_wide_inputs_cost_no_memory() -> None:
    """Corners of a 24-bit input: 0, 1, the top bit, all ones, all ones but one. Before, they were found by
    intersecting with set(range(1 << w)): about 1 GB at 24 bits, and a 32-bit counter in the QoR suite drove
    hh run to 20 GB and the kernel's OOM killer."""
    import tracemalloc

    from hyperheurist.search.moves.looplift import points

    tracemalloc.start()
    pts = points({"a": 24, "b": 1}, "seed")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20 << 20, peak
    assert {p["a"] for p in pts[:10]} >= {0, 1, 1 << 23, (1 << 24) - 1, (1 << 24) - 2}
