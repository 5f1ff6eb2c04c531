"""Rewrites from semantics (issue 30, item 2): sequential invariants (registers proven constant or equal to
another register by induction), observability don't-cares (operand isolation nobody can see) and shared
products (distribution through the e-graph). Each rewrite the move proposes is proven equal to its parent
by the real engines at small widths (sequentially from reset where the design is clocked); the negative
cases are a register that does change, a gating an output observes, and a product with nothing to share."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import Reset
from hyperheurist.config.design import DesignConfig
from hyperheurist.config.limits import Limits
from hyperheurist.config.verification import Verification
from hyperheurist.egraph.rules import BY_NAME
from hyperheurist.formal.invariants import Claim, InvariantJob, find
from hyperheurist.formal.verdict import Verdict
from hyperheurist.recipe import Recipe
from hyperheurist.rewrite.interface import module_interface
from hyperheurist.rewrite.prove import ProofTask, prove_rewrite
from hyperheurist.search.moves import rtl_moves
from hyperheurist.search.moves.dontcare import UnobservableGating
from hyperheurist.search.moves.egraph import EgraphRewrite
from hyperheurist.search.moves.expr import Widths
from hyperheurist.search.moves.invariants import SequentialInvariant, constant_site, registers
from hyperheurist.search.moves.rtl import RtlMove
from hyperheurist.search.moves.verilog import apply_edits, modules, parse
from hyperheurist.search.state import MoveContext, State

RST = Reset(name="rst", active="high")

# a saturating counter (stops at 10) and an overflow flag set at 15: the flag can never be set
SATURATING = """module t(input clk, input rst, input inc, output reg [3:0] cnt, output reg ovf, output [3:0] tog);
  reg [3:0] t1;
  always @(posedge clk)
    if (rst) begin cnt <= 4'd0; ovf <= 1'b0; t1 <= 4'd0; end
    else begin
      if (inc && cnt != 4'd10) cnt <= cnt + 4'd1;
      if (inc && cnt == 4'd15) ovf <= 1'b1;
      if (inc) t1 <= t1 + 4'd3;
    end
  assign tog = t1;
endmodule
"""
# a and b are loaded identically (a copy kept for timing, say); c is loaded with something else
TWINS = """module t(input clk, input rst, input ld, input [3:0] d, output [3:0] y);
  reg [3:0] a, b, c;
  always @(posedge clk)
    if (rst) begin a <= 4'd0; b <= 4'd0; c <= 4'd0; end
    else if (ld) begin a <= d; b <= d; c <= d + 4'd1; end
  assign y = (a & b) ^ c;
endmodule
"""
# operand isolation in front of an adder whose result register only loads when en is high
ISOLATED = """module t(input clk, input rst, input en, input ld, input [3:0] x, input [3:0] y, output reg [4:0] r,
         output [3:0] z);
  wire [3:0] xi = en ? x : 4'd0;
  wire [4:0] sum = xi + y;
  assign z = y & {4{en}};
  always @(posedge clk)
    if (rst) r <= 5'd0;
    else if (LOAD) r <= sum;
endmodule
"""
SHARED = """module t(input [3:0] a, input [3:0] b, output [7:0] p, output [7:0] q);
  assign p = a * b;
  assign q = a * (b + 4'd1);
endmodule
"""


def _ctx(text: str, clocked: bool = True) -> MoveContext:
    iface = module_interface(text, "t", clock="clk" if clocked else None, reset=RST if clocked else None)
    design = DesignConfig.model_construct(name="t", top="t", interface=iface, limits=Limits(), tunables=[],
                                          verification=Verification.model_construct())
    return MoveContext(design=design, flow=None)  # type: ignore[arg-type]


def _children(move: RtlMove, text: str, clocked: bool = True) -> list[str]:
    start = State(Candidate.from_text(text, "t"), Recipe())
    return [s.candidate.files[0][1] for s in move.neighbours(start, _ctx(text, clocked), random.Random(0))]


def _prove(tmp_path: Path, parent: str, child: str, clocked: bool = True) -> Verdict:
    iface = module_interface(parent, "t", clock="clk" if clocked else None, reset=RST if clocked else None)
    return prove_rewrite(ProofTask(parent, child, "t", iface, depth=16), tmp_path)


@pytest.mark.tools
def test_unreachable_flag_is_proven_constant_and_its_set_logic_dropped(tmp_path: Path) -> None:
    kids = _children(SequentialInvariant(), SATURATING)
    assert len(kids) == 1, kids  # ovf only: cnt and t1 change
    child = kids[0]
    assert "ovf <= 1'd0;" in child and "ovf <= 1'b1;" not in child and "t1 <= t1 + 4'd3" in child
    v = _prove(tmp_path, SATURATING, child)
    assert v.kind == "proven", v.summary()


@pytest.mark.tools
def test_registers_loaded_identically_become_one(tmp_path: Path) -> None:
    kids = _children(SequentialInvariant(), TWINS)
    assert kids == [TWINS.replace("(a & b)", "(a & a)")], kids  # c differs from both: never merged
    v = _prove(tmp_path, TWINS, kids[0])
    assert v.kind == "proven", v.summary()


@pytest.mark.tools
def test_a_register_that_changes_is_not_claimed_and_its_removal_is_refuted(tmp_path: Path) -> None:
    iface = module_interface(SATURATING, "t", clock="clk", reset=RST)
    claims = (Claim("ovf", 1, value=0), Claim("cnt", 4, value=0), Claim("t1", 4, value=0), Claim("t1", 4, other="cnt"))
    assert find(InvariantJob({"t.v": SATURATING}, "t", iface, claims), folder=tmp_path / "inv") == {0}
    # forced anyway, the proof refuses it: t1 is observable on tog and does change
    tree = parse(SATURATING)
    t1 = registers(modules(tree)[0], Widths(tree).get())["t1"]
    forced = apply_edits(SATURATING, constant_site(t1))
    assert forced is not None and "t1 <= 4'd0;\n" in forced
    v = _prove(tmp_path / "forced", SATURATING, forced)
    assert v.kind == "refuted", v.summary()


@pytest.mark.tools
def test_isolation_the_consumer_masks_is_removed_and_proven(tmp_path: Path) -> None:
    parent = ISOLATED.replace("LOAD", "en")
    kids = _children(UnobservableGating(), parent)
    assert kids == [parent.replace("en ? x : 4'd0", "x")], kids  # z = y & {4{en}} feeds an output: not offered
    v = _prove(tmp_path, parent, kids[0])
    assert v.kind == "proven", v.summary()


@pytest.mark.tools
def test_isolation_written_as_an_if_in_a_combinational_block_is_removed_and_proven(tmp_path: Path) -> None:
    """The same gating in another form: ``if (en) xi = x; else xi = 0;``, and the register's enable a delayed
    copy of en (en_q) for a pipelined adder: found through the data flow, not one text."""
    parent = """module t(input clk, input rst, input en, input [3:0] x, input [3:0] y, output reg [4:0] r);
  reg [3:0] xi;
  reg [4:0] s;
  reg en_q;
  always @* begin
    if (en) xi = x;
    else xi = 4'd0;
  end
  always @(posedge clk)
    if (rst) begin s <= 5'd0; en_q <= 1'b0; r <= 5'd0; end
    else begin
      s <= xi + y;
      en_q <= en;
      if (en_q) r <= s;
    end
endmodule
"""
    kids = _children(UnobservableGating(), parent)
    assert kids == [parent.replace("if (en) xi = x;\n    else xi = 4'd0;", "xi = x;")], kids
    v = _prove(tmp_path, parent, kids[0])
    assert v.kind == "proven", v.summary()


@pytest.mark.tools
def test_isolation_an_output_observes_is_refuted(tmp_path: Path) -> None:
    parent = ISOLATED.replace("LOAD", "en || ld")  # r also loads the sum when en is low
    kids = _children(UnobservableGating(), parent)
    assert kids == [parent.replace("en ? x : 4'd0", "x")], kids
    v = _prove(tmp_path, parent, kids[0])
    assert v.kind == "refuted", v.summary()


@pytest.mark.tools
def test_a_product_beside_its_expansion_is_shared_and_proven(tmp_path: Path) -> None:
    assert {"distribute-mul-add", "distribute-mul-sub"} <= set(BY_NAME)
    kids = _children(EgraphRewrite(), SHARED, clocked=False)
    assert kids, "a*(b+1) beside a*b: one product should serve both"
    child = kids[0]
    assert "b + 4'd1" not in child and child.count("*") <= SHARED.count("*")
    v = _prove(tmp_path, SHARED, child, clocked=False)
    assert v.kind == "proven", v.summary()


def test_a_product_with_nothing_to_share_is_not_distributed() -> None:
    """a*(b + c) alone: distributing it would make two products of one; extraction keeps the one."""
    alone = """module t(input [3:0] a, input [3:0] b, input [3:0] c, output [7:0] q);
  assign q = a * (b + c);
endmodule
"""
    assert all(k.count("*") <= 1 for k in _children(EgraphRewrite(), alone, clocked=False))


def test_the_moves_are_in_the_default_rtl_moves() -> None:
    names = {m.name for m in rtl_moves()}
    assert {"sequential_invariant", "unobservable_gating"} <= names
