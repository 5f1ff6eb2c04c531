"""Wrap-around counter rewrites (register width, comparisons the counter never meets), proven
equivalent from reset by the formal engines: an unbounded proof (ABC scorr+pdr), not a bounded one;
and the patterns they refuse."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import Reset
from hyperheurist.formal.verdict import Verdict
from hyperheurist.recipe import Recipe
from hyperheurist.rewrite.interface import module_interface
from hyperheurist.rewrite.prove import ProofTask, prove_rewrite
from hyperheurist.search.moves.counters import CounterDeadCompare, CounterWidth
from hyperheurist.search.state import MoveContext, State

CTX = MoveContext(design=None, flow=None)  # type: ignore[arg-type]

COUNTER = """module t(input clk, input rst, input en, output tick, output [1:0] y);
  reg [7:0] c;
  always @(posedge clk)
    if (rst) c <= 8'd0;
    else if (c == 8'd5) c <= 8'd1;
    else if (en) c <= c + 8'd1;
  assign tick = c == 8'd5;
  assign y = (c != 8'd9) ? 2'd1 : 2'd2;
endmodule
"""
TERNARY = """module t(input clk, input rst, input [3:0] d, output reg [2:0] c, output reg [3:0] acc);
  always @(posedge clk)
    if (rst) begin c <= 3'd0; acc <= 4'd0; end
    else begin
      c <= (c == 3'd4) ? 3'd0 : c + 3'd1;
      if (c == 3'd6) acc <= acc + d;
    end
endmodule
"""


def _apply(move, text: str) -> str | None:
    new = move.propose(State(Candidate.from_text(text, "t"), Recipe()), CTX, random.Random(0))
    return None if new is None else new.candidate.files[0][1]


def _prove(tmp_path: Path, a: str, b: str) -> Verdict:
    iface = module_interface(a, "t", clock="clk", reset=Reset(name="rst", active="high"))
    return prove_rewrite(ProofTask(a, b, "t", iface, depth=16), tmp_path)


def _proven(tmp_path: Path, a: str, b: str) -> bool:
    v = _prove(tmp_path, a, b)
    assert v.kind in ("proven", "refuted"), v.summary()  # a real proof either way, never only a bound
    return v.kind == "proven"


@pytest.mark.tools
def test_counter_width_is_proven(tmp_path: Path) -> None:
    new = _apply(CounterWidth(), COUNTER)
    assert new is not None and "reg [2:0] c;" in new
    assert _proven(tmp_path, COUNTER, new)


@pytest.mark.tools
def test_dead_compares_are_proven(tmp_path: Path) -> None:
    new = _apply(CounterDeadCompare(), COUNTER)
    assert new is not None and "assign y = (1'b1) ? 2'd1 : 2'd2;" in new and "c == 8'd5" in new
    assert _proven(tmp_path / "a", COUNTER, new)
    new = _apply(CounterDeadCompare(), TERNARY)  # the output-port counter of a ternary wrap
    assert new is not None and "if (1'b0)" in new
    assert _proven(tmp_path / "b", TERNARY, new)


@pytest.mark.tools
def test_a_wrong_limit_would_be_caught(tmp_path: Path) -> None:
    """The proofs above can fail: narrowing below the range changes the behaviour."""
    v = _prove(tmp_path, COUNTER, COUNTER.replace("reg [7:0] c;", "reg [1:0] c;"))
    assert v.kind == "refuted" and v.counterexample, v.summary()


@pytest.mark.parametrize("change", [
    ("else if (c == 8'd5) c <= 8'd1;", "else if (c == 8'd5 && en) c <= 8'd1;"),  # else does not imply c != 5
    ("else if (en) c <= c + 8'd1;", "else if (en) c <= c + 8'd2;"),              # not an increment by one
    ("if (rst) c <= 8'd0;", "if (rst) c <= 8'd7;"),                              # a constant beyond the limit
    ("assign tick = c == 8'd5;", "assign tick = ^{c, en};"),                     # a width-sensitive use
    ("assign tick = c == 8'd5;", "assign tick = c[7];"),                         # a bit select
])
def test_non_counters_are_left_alone(change: tuple[str, str]) -> None:
    text = COUNTER.replace(*change)
    assert text != COUNTER
    assert _apply(CounterWidth(), text) is None
