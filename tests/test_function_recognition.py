"""function_recognition: a combinational cone matched by WHAT it computes against the word-level library
(``search/moves/funclib.py``) and written again in that form. One test per class of rewrite at small
widths, each child proven equal to its parent by the formal engines; near-miss functions get no offer."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.egraph.ir import node, var
from hyperheurist.recipe import Recipe
from hyperheurist.rewrite.interface import module_interface
from hyperheurist.rewrite.prove import ProofTask, prove_rewrite
from hyperheurist.search.moves import FunctionRecognition, rtl_moves
from hyperheurist.search.moves.recognise import recognise
from hyperheurist.search.state import MoveContext, State

CTX = MoveContext(design=None, flow=None)  # type: ignore[arg-type]

# name -> (parent, a text every child must hold, a text no child may hold)
CASES = {
    "absdiff_with_borrow_compare": ("""module t(input [5:0] a, input [5:0] b, output reg [5:0] y, output reg lt);
  always @* begin
    if (a < b) begin lt = 1'b1; y = b - a; end
    else begin lt = 1'b0; y = a - b; end
  end
endmodule
""", "{1'h0, a} - {1'h0, b}", "<"),
    "max_from_a_bit_loop": ("""module t(input [5:0] a, input [5:0] b, output reg [5:0] y);
  integer i;
  reg big;
  always @* begin
    big = 1'b0;
    for (i = 0; i < 6; i = i + 1) if (a[i] != b[i]) big = a[i];
    y = big ? a : b;
  end
endmodule
""", "<", "for"),
    "popcount_loop": ("""module t(input [6:0] x, output reg [2:0] n);
  integer i;
  always @* begin
    n = 3'd0;
    for (i = 0; i < 7; i = i + 1) if (x[i]) n = n + 3'd1;
  end
endmodule
""", "+", "for"),
    "hamming_loop": ("""module t(input [5:0] a, input [5:0] b, output reg [2:0] d);
  integer i;
  always @* begin
    d = 3'd0;
    for (i = 0; i < 6; i = i + 1) if (a[i] != b[i]) d = d + 3'd1;
  end
endmodule
""", "a ^ b", "for"),
    "trailing_zeros_priority_loop": ("""module t(input [7:0] x, output reg [3:0] n);
  integer i;
  reg found;
  always @* begin
    n = 4'd8; found = 1'b0;
    for (i = 0; i < 8; i = i + 1) if (!found && x[i]) begin n = i; found = 1'b1; end
  end
endmodule
""", "|", "for"),
    "highest_set_bit_loop": ("""module t(input [7:0] x, output reg [2:0] idx);
  integer i;
  always @* begin
    idx = 3'd0;
    for (i = 0; i < 8; i = i + 1) if (x[i]) idx = i;
  end
endmodule
""", "|", "for"),
    "leading_zeros_loop": ("""module t(input [7:0] x, output reg [3:0] n);
  integer i;
  reg done;
  always @* begin
    n = 4'd0; done = 1'b0;
    for (i = 7; i >= 0; i = i - 1) if (!done) begin if (x[i]) done = 1'b1; else n = n + 4'd1; end
  end
endmodule
""", "|", "for"),
    "saturating_add_ripple_loop": ("""module t(input [5:0] a, input [5:0] b, output reg [5:0] y);
  integer i;
  reg c;
  reg [5:0] s;
  always @* begin
    c = 1'b0;
    for (i = 0; i < 6; i = i + 1) begin
      s[i] = a[i] ^ b[i] ^ c;
      c = (a[i] & b[i]) | (c & (a[i] ^ b[i]));
    end
    y = c ? 6'h3f : s;
  end
endmodule
""", "{1'h0, a} + {1'h0, b}", "for"),
    "barrel_shift_loop": ("""module t(input [7:0] a, input [2:0] s, output reg [7:0] y);
  integer i;
  always @* begin
    y = a;
    for (i = 0; i < 3; i = i + 1) if (s[i]) y = y << (1 << i);
  end
endmodule
""", "a << s", "for"),
    "shift_and_add_multiply_loop": ("""module t(input [3:0] a, input [3:0] b, output reg [7:0] p);
  integer i;
  always @* begin
    p = 8'd0;
    for (i = 0; i < 4; i = i + 1) if (b[i]) p = p + ({4'd0, a} << i);
  end
endmodule
""", "*", "for"),
    "parity_loop": ("""module t(input [7:0] x, output reg p);
  integer i;
  always @* begin
    p = 1'b0;
    for (i = 0; i < 8; i = i + 1) p = p ^ x[i];
  end
endmodule
""", "^x", "for"),
    "mux_of_a_form_and_a_constant": ("""module t(input [5:0] a, input [5:0] b, input en, output reg [5:0] y);
  always @* begin
    if (!en) y = 6'd0;
    else if (a > b) y = a - b;
    else y = b - a;
  end
endmodule
""", "en ?", "a > b"),
    "mux_of_two_forms": ("""module t(input [7:0] x, input pick, output reg [3:0] n);
  integer i;
  reg found;
  always @* begin
    n = 4'd8; found = 1'b0;
    for (i = 0; i < 8; i = i + 1) if (!found && (pick ? x[i] : x[7 - i])) begin n = i; found = 1'b1; end
  end
endmodule
""", "pick ?", "for"),
}

NEAR_MISS = {
    # a - b + 1: a subtraction and an increment, which no form of the library is
    "difference_plus_one": """module t(input [5:0] a, input [5:0] b, output reg [5:0] y);
  integer i;
  always @* begin
    y = a + 6'd1;
    for (i = 0; i < 1; i = i + 1) y = y - b;
  end
endmodule
""",
    # the priority loop stops one bit short: the trailing-zero count except where only bit 7 is set
    "trailing_zeros_one_bit_short": """module t(input [7:0] x, output reg [3:0] n);
  integer i;
  reg found;
  always @* begin
    n = 4'd8; found = 1'b0;
    for (i = 0; i < 7; i = i + 1) if (!found && x[i]) begin n = i; found = 1'b1; end
  end
endmodule
""",
}


def _children(text: str) -> list[str]:
    state = State(Candidate.from_text(text, "t"), Recipe())
    return [c.candidate.files[0][1] for c in FunctionRecognition().neighbours(state, CTX, random.Random(0))]


def _proven(tmp_path: Path, parent: str, child: str) -> bool:
    v = prove_rewrite(ProofTask(parent, child, "t", module_interface(parent, "t")), tmp_path)
    assert v.kind in ("proven", "refuted"), v.summary()
    return v.kind == "proven"


def test_the_move_is_registered() -> None:
    assert "function_recognition" in {m.name for m in rtl_moves()}


@pytest.mark.tools
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_class_is_recognised_and_proven(tmp_path: Path, case: str) -> None:
    parent, has, lacks = CASES[case]
    children = _children(parent)
    assert len(children) == 1, children
    child = children[0]
    body = child.split(";", 1)[1]  # past the port list
    assert has in body and lacks not in body, child
    assert _proven(tmp_path, parent, child), child


@pytest.mark.parametrize("case", sorted(NEAR_MISS))
def test_a_near_miss_function_is_not_matched(case: str) -> None:
    assert _children(NEAR_MISS[case]) == []


def test_a_near_miss_term_has_no_form() -> None:
    a, b = var("a", 6), var("b", 6)
    one = node("const", 6, value=1)
    assert recognise({"y": node("add", 6, node("sub", 6, a, b), one)}, "seed") is None
    assert recognise({"y": node("sub", 6, a, b)}, "seed") is not None


@pytest.mark.tools
def test_a_wrong_recognition_would_be_refuted(tmp_path: Path) -> None:
    """The gate the children pass is a real proof: the trailing-zero count with the wrong value at 0."""
    parent = CASES["trailing_zeros_priority_loop"][0]
    child = _children(parent)[0]
    wrong = child.replace("4'h8", "4'h7")
    assert wrong != child and not _proven(tmp_path, parent, wrong)
