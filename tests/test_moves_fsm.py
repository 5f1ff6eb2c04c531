"""The FSM re-encoding move finds FSMs written the usual ways (a comment before the state register,
a sensitivity list naming it) and every re-encoding it makes is formally proven from reset against
the original (the formal engines: an unbounded proof, not a bound)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import Reset
from hyperheurist.formal.verdict import Verdict
from hyperheurist.recipe import Recipe
from hyperheurist.rewrite.interface import module_interface
from hyperheurist.rewrite.prove import ProofTask, accepted, prove_rewrite
from hyperheurist.search.moves.fsm import FsmEncoding
from hyperheurist.search.moves.verilog import K, node_text, parse, walk
from hyperheurist.search.state import MoveContext, State

CTX = MoveContext(design=None, flow=None)  # type: ignore[arg-type]

FSM = """module ctl(input clk, input rst, input go, input stop, output reg busy, output done);
  localparam IDLE = 2'd0, RUN = 2'd1, HOLD = 2'd2;
  // the state register: a comment here used to hide the FSM from the move
  /* and a block comment */
  reg [1:0] state;
  reg [1:0] nxt;
  always @(state or go or stop) begin   // Verilog-1995 sensitivity list naming the state
    nxt = state;
    busy = 1'b0;
    case (state)
      IDLE: if (go) nxt = RUN;
      RUN: begin busy = 1'b1; if (stop) nxt = HOLD; end
      HOLD: nxt = go ? RUN : IDLE;
      default: nxt = IDLE;
    endcase
  end
  always @(posedge clk) if (rst) state <= IDLE; else state <= nxt;
  assign done = state == HOLD;
endmodule
"""


def _prove(parent: str, child: str, folder: Path) -> Verdict:
    iface = module_interface(parent, "ctl", clock="clk", reset=Reset(name="rst", active="high"))
    return prove_rewrite(ProofTask(parent, child, "ctl", iface, depth=10), folder)


def _state(text: str) -> State:
    return State(Candidate.from_text(text, "ctl"), Recipe())


def _text(st: State) -> str:
    return st.candidate.files[0][1]


def test_node_text_survives_leading_comments() -> None:
    tree = parse(FSM)
    decl = next(n for n in walk(tree.root) if n.kind == K.DataDeclaration)
    assert node_text(decl.type, FSM) == "reg [1:0]"


@pytest.mark.tools
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fsm_with_comments_and_sensitivity_list_is_reencoded_and_proven(tmp_path: Path, seed: int) -> None:
    new = FsmEncoding().propose(_state(FSM), CTX, random.Random(seed))
    assert new is not None, "the FSM was skipped"
    text = _text(new)
    assert text != FSM and "// the state register" in text
    v = _prove(FSM, text, tmp_path)
    assert accepted(v) and v.kind == "proven", (v.summary(), text)


@pytest.mark.tools
def test_the_prover_catches_a_wrong_reencoding(tmp_path: Path) -> None:
    """The proof above can fail: codes that collide (HOLD = RUN) change the behaviour."""
    wrong = FSM.replace("HOLD = 2'd2", "HOLD = 2'd1")
    v = _prove(FSM, wrong, tmp_path)
    assert v.kind == "refuted" and not accepted(v), v.summary()


def test_edge_on_the_state_register_is_left_alone() -> None:
    # posedge state watches bit 0, which the encoding decides: not a whole-value use
    edgy = FSM.replace("assign done = state == HOLD;",
                       "reg seen;\n  always @(posedge state) seen <= 1'b1;\n  assign done = seen;")
    assert FsmEncoding().propose(_state(edgy), CTX, random.Random(0)) is None
