"""function_recognition on cones whose output is a predicate or a composition (``search/moves/funcpred.py``):
a count of ones, a run at one end, a count of fields or a library function compared with constants, flags
of search loops, and a clocked block whose loop computes a value that is only compared
(``search/moves/clockblock.py``). One test per class at small widths, each child proven equal to its parent
by the formal engines; near misses get no offer, or only offers the proof accepts."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import Reset
from hyperheurist.recipe import Recipe
from hyperheurist.rewrite.interface import module_interface
from hyperheurist.rewrite.prove import ProofTask, prove_rewrite
from hyperheurist.search.moves import FunctionRecognition
from hyperheurist.search.moves.funcpred import extra_points, shape
from hyperheurist.search.state import MoveContext, State

CTX = MoveContext(design=None, flow=None)  # type: ignore[arg-type]


def count_loop(width: int, compare: str, bit: str = "x[i]") -> str:
    """A loop counting the ones of ``x`` (or of another per-bit test), then ``y = cnt <compare>``."""
    return f"""module t(input [{width - 1}:0] x, output reg y);
  integer i;
  reg [7:0] cnt;
  always @* begin
    cnt = 8'd0;
    for (i = 0; i < {width}; i = i + 1) if ({bit}) cnt = cnt + 8'd1;
    y = cnt {compare};
  end
endmodule
"""


# name -> (parent, a text every child must hold, a text no child may hold)
CASES = {
    "count_equals_width_is_and": (count_loop(6, "== 8'd6"), "&x", "for"),
    "zeros_count_zero_is_and": (count_loop(7, "== 8'd0", "!x[i]"), "&x", "for"),
    "count_zero_is_nor": (count_loop(6, "== 8'd0"), "|x", "for"),
    "count_at_least_one_is_or": (count_loop(6, ">= 8'd1"), "|x", "for"),
    "exactly_one_bit_set": (count_loop(8, "== 8'd1"), "x - 8'h1", "for"),
    "at_least_two_bits_set": (count_loop(8, "> 8'd1"), "x - 8'h1", "for"),
    "count_threshold_is_a_compare_of_a_tree": (count_loop(8, "> 8'd5"), ">=", "for"),
    "count_range": (count_loop(8, ">= 8'd3 && cnt <= 8'd5"), "+", "for"),
    "leading_ones_at_least": ("""module t(input [7:0] x, output reg y);
  integer i;
  reg [3:0] n;
  reg stop;
  always @* begin
    n = 4'd0; stop = 1'b0;
    for (i = 7; i >= 0; i = i - 1) if (!stop) begin if (x[i]) n = n + 4'd1; else stop = 1'b1; end
    y = n >= 4'd3;
  end
endmodule
""", "&{x[7:7], x[6:6], x[5:5]}", "for"),
    "trailing_zeros_at_least": ("""module t(input [7:0] x, output reg y);
  integer i;
  reg found;
  reg [3:0] n;
  always @* begin
    n = 4'd8; found = 1'b0;
    for (i = 0; i < 8; i = i + 1) if (!found && x[i]) begin n = i; found = 1'b1; end
    y = n >= 4'd2;
  end
endmodule
""", "|{x[1:1], x[0:0]}", "for"),
    "found_flag_any_field_equal": ("""module t(input [15:0] a, input [3:0] k, output reg y);
  integer i;
  reg found;
  always @* begin
    found = 1'b0;
    for (i = 0; i < 4; i = i + 1) if (a[4*i +: 4] == k) found = 1'b1;
    y = found;
  end
endmodule
""", "== k", "for"),
    "all_fields_nonzero": ("""module t(input [15:0] a, output reg y);
  integer i;
  always @* begin
    y = 1'b1;
    for (i = 0; i < 4; i = i + 1) if (a[4*i +: 4] == 4'd0) y = 1'b0;
  end
endmodule
""", "|a[15:12]", "for"),
    "product_loop_compared_to_a_constant": ("""module t(input [3:0] a, input [3:0] b, output reg y);
  integer i;
  reg [7:0] p;
  always @* begin
    p = 8'd0;
    for (i = 0; i < 4; i = i + 1) if (b[i]) p = p + ({4'd0, a} << i);
    y = p > 8'd40;
  end
endmodule
""", "*", "for"),
    "hamming_loop_compared_to_a_constant": ("""module t(input [5:0] a, input [5:0] b, output reg y);
  integer i;
  reg [2:0] d;
  always @* begin
    d = 3'd0;
    for (i = 0; i < 6; i = i + 1) if (a[i] != b[i]) d = d + 3'd1;
    y = d <= 3'd1;
  end
endmodule
""", "a ^ b", "for"),
}

CLOCKED = """module t(input clk, input rst, input [7:0] req, output reg multi);
  integer i;
  reg [3:0] cnt;
  always @(posedge clk) begin
    cnt = 4'd0;
    for (i = 0; i < 8; i = i + 1) cnt = cnt + req[i];
    if (rst) multi <= 1'b0;
    else multi <= cnt >= 4'd2;
  end
endmodule
"""


def _children(text: str) -> list[str]:
    state = State(Candidate.from_text(text, "t"), Recipe())
    return [c.candidate.files[0][1] for c in FunctionRecognition().neighbours(state, CTX, random.Random(0))]


def _proven(tmp_path: Path, parent: str, child: str, clocked: bool = False) -> bool:
    iface = (module_interface(parent, "t", clock="clk", reset=Reset(name="rst", active="high", sync=True))
             if clocked else module_interface(parent, "t"))
    v = prove_rewrite(ProofTask(parent, child, "t", iface), tmp_path)
    assert v.kind in ("proven", "refuted"), v.summary()
    return v.kind == "proven"


def test_shapes() -> None:
    assert shape([0, 1, 2, 3], [0, 0, 1, 1]) == ("ge", 2, 2)
    assert shape([0, 1, 2, 3], [1, 1, 0, 0]) == ("le", 1, 1)
    assert shape([0, 1, 2, 3], [0, 1, 0, 0]) == ("eq", 1, 1)
    assert shape([0, 1, 2, 3], [1, 0, 1, 1]) == ("ne", 1, 1)
    assert shape([0, 1, 2, 3, 4], [0, 1, 1, 0, 0]) == ("in", 1, 2)
    assert shape([0, 1, 2, 3, 4], [1, 0, 0, 1, 1]) == ("out", 1, 2)
    assert shape([0, 1, 2, 3, 4], [0, 1, 0, 1, 0]) is None  # odd: no compare with constants
    assert shape([0, 1, 1], [0, 1, 0]) is None  # one value, both outputs: not a function of the measure
    assert shape([0, 1, 2], [1, 1, 1]) is None  # a constant is no predicate


def test_extra_points_reach_every_count() -> None:
    pts = extra_points({"x": 40, "k": 8}, "seed")
    counts = {bin(p["x"]).count("1") for p in pts}
    assert counts == set(range(41))
    assert {sum(1 for i in range(5) if (p["x"] >> (8 * i)) & 255 == p["k"]) for p in pts} == set(range(6))


@pytest.mark.tools
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_predicate_class_is_recognised_and_proven(tmp_path: Path, case: str) -> None:
    parent, has, lacks = CASES[case]
    children = _children(parent)
    assert len(children) == 1, children
    child = children[0]
    body = child.split(";", 1)[1]  # past the port list
    assert has in body and lacks not in body, child
    assert _proven(tmp_path, parent, child), child


@pytest.mark.tools
def test_a_clocked_loop_whose_count_is_only_compared(tmp_path: Path) -> None:
    children = _children(CLOCKED)
    assert len(children) == 1, children
    child = children[0]
    assert "always @(posedge clk) multi <=" in child and "for" not in child and "req - 8'h1" in child, child
    assert _proven(tmp_path, CLOCKED, child, clocked=True), child


def test_a_clocked_register_read_before_written_is_left_alone() -> None:
    """``acc`` keeps its value between clocks (read before written): a register, so no rewrite drops it."""
    text = """module t(input clk, input [7:0] req, output reg big);
  integer i;
  reg [3:0] acc;
  always @(posedge clk) begin
    for (i = 0; i < 8; i = i + 1) acc = acc + req[i];
    big <= acc >= 4'd2;
  end
endmodule
"""
    assert _children(text) == []


NEAR_MISS = {
    # a count compared with a set that is no range: no predicate of one measure
    "count_is_two_or_four": count_loop(8, "== 8'd2 || cnt == 8'd4"),
    # the parity of the count, or-ed with a threshold: no single compare
    "parity_or_threshold": count_loop(8, ">= 8'd6 || cnt[0]"),
}

# shapes next to a class: the move may offer them (each is a true function: the first two are offered, the
# last is not) but never the neighbour's form, and whatever it offers is proven
NEIGHBOURS = {
    # count == W-1 is not &x (that is count == W)
    "count_equals_width_minus_one": (count_loop(6, "== 8'd5"), "y = &x;", True),
    # the loop stops one bit short: its count == W-1 of the low bits is not the and of all W
    "count_loop_one_bit_short": (count_loop(6, "== 8'd5").replace("i < 6", "i < 5"), "y = &x;", True),
    # leading ones >= 3, but the loop starts one bit low
    "leading_ones_one_bit_low": (CASES["leading_ones_at_least"][0].replace("i = 7; i >= 0", "i = 6; i >= 0"),
                                 "x[7:7]", False),
}


@pytest.mark.parametrize("case", sorted(NEAR_MISS))
def test_a_near_miss_predicate_is_not_matched(case: str) -> None:
    assert _children(NEAR_MISS[case]) == []


@pytest.mark.tools
@pytest.mark.parametrize("case", sorted(NEIGHBOURS))
def test_a_neighbour_gets_no_wrong_form(tmp_path: Path, case: str) -> None:
    parent, wrong, offered = NEIGHBOURS[case]
    children = _children(parent)
    assert bool(children) == offered, children
    for child in children:
        assert wrong not in child.split(";", 1)[1], child
        assert _proven(tmp_path, parent, child), child


@pytest.mark.tools
def test_a_wrong_threshold_would_be_refuted(tmp_path: Path) -> None:
    """The gate is a real proof: the one-hot test written with the count threshold one off."""
    parent = CASES["count_threshold_is_a_compare_of_a_tree"][0]
    child = _children(parent)[0]
    wrong = child.replace(">= 4'h6", ">= 4'h5")
    assert wrong != child and not _proven(tmp_path, parent, wrong)
