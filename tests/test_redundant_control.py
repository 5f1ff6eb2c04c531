"""redundant_control (issue 30): a register's reset, enable (hold) and clear are dropped only where the proof
from reset shows no output sees them. Positive: a delay line with a valid chain whose data stages are reset,
zeroed when not valid and loaded under their valid; the child drops all of it and is proven by the real engines.
A skid register keeps, of its load conditions, the one enable that matters (the proof picks it).
Negatives: a reset value an output sees right after reset, and a held value an output sees, are refuted (the
proof treats a register without a reset as starting from any value), and the move does not offer them."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import Reset
from hyperheurist.config.design import DesignConfig
from hyperheurist.config.limits import Limits
from hyperheurist.config.verification import Verification
from hyperheurist.formal.verdict import Verdict
from hyperheurist.recipe import Recipe
from hyperheurist.rewrite.interface import module_interface
from hyperheurist.rewrite.prove import ProofTask, prove_rewrite
from hyperheurist.search.moves import rtl_moves
from hyperheurist.search.moves.redundantctl import Level, RedundantControl, registers, rewrite
from hyperheurist.search.moves.verilog import apply_edits, modules, parse
from hyperheurist.search.state import MoveContext, State

RST = Reset(name="rst", active="high")

# two data stages behind a valid chain: reset, zeroed when not valid, loaded only under their valid
DELAY = """module t(input clk, input rst, input iv, input [3:0] id, output ov, output [3:0] od);
  reg [3:0] d1, d2;
  reg v1, v2;
  always @(posedge clk)
    if (rst) begin
      v1 <= 1'b0; v2 <= 1'b0; d1 <= 4'd0; d2 <= 4'd0;
    end else begin
      v1 <= iv; v2 <= v1;
      d1 <= iv ? id : 4'd0;
      if (v1) d2 <= d1;
    end
  assign ov = v2;
  assign od = v2 ? d2 : 4'd0;
endmodule
"""
# r's reset value reaches the output in the first cycle after reset
SEEN_RESET = """module t(input clk, input rst, input en, input [3:0] d, output [3:0] y);
  reg [3:0] r;
  always @(posedge clk)
    if (rst) r <= 4'd0;  // 0: a proof that started flops at 0 would wrongly accept its removal
    else if (en) r <= d;
  assign y = r;
endmodule
"""
# r is shown only once it was loaded (v is sticky), so its reset is unseen; but its hold is seen
SEEN_HOLD = """module t(input clk, input rst, input en, input [3:0] d, output [3:0] y);
  reg [3:0] r;
  reg v;
  always @(posedge clk)
    if (rst) begin v <= 1'b0; r <= 4'd0; end
    else if (en) begin v <= 1'b1; r <= d; end
  assign y = v ? r : 4'd0;
endmodule
"""
# a skid buffer: the skid register is cleared when consumed and loaded only when it catches a stalled beat
SKID = """module t(input clk, input rst, input s_valid, output s_ready, input [3:0] s_data,
         output m_valid, input m_ready, output [3:0] m_data);
  reg [3:0] main_data, skid_data;
  reg main_valid, skid_valid;
  assign s_ready = !skid_valid;
  assign m_valid = main_valid;
  assign m_data = main_data;
  always @(posedge clk)
    if (rst) begin
      main_valid <= 1'b0; skid_valid <= 1'b0; main_data <= 4'd0; skid_data <= 4'd0;
    end else if (!main_valid || m_ready) begin
      if (skid_valid) begin
        main_valid <= 1'b1; main_data <= skid_data; skid_valid <= 1'b0; skid_data <= 4'd0;
      end else if (s_valid) begin
        main_valid <= 1'b1; main_data <= s_data;
      end else
        main_valid <= 1'b0;
    end else if (s_valid && !skid_valid) begin
      skid_valid <= 1'b1; skid_data <= s_data;
    end
endmodule
"""


def _ctx(text: str) -> MoveContext:
    iface = module_interface(text, "t", clock="clk", reset=RST)
    design = DesignConfig.model_construct(name="t", top="t", interface=iface, limits=Limits(), tunables=[],
                                          verification=Verification.model_construct())
    return MoveContext(design=design, flow=None)  # type: ignore[arg-type]


def _children(text: str) -> list[str]:
    start = State(Candidate.from_text(text, "t"), Recipe())
    return [s.candidate.files[0][1] for s in RedundantControl().neighbours(start, _ctx(text), random.Random(0))]


def _prove(tmp_path: Path, parent: str, child: str) -> Verdict:
    iface = module_interface(parent, "t", clock="clk", reset=RST)
    return prove_rewrite(ProofTask(parent, child, "t", iface, depth=16), tmp_path)


def _variant(text: str, name: str, level: Level) -> str:
    mod = next(iter(modules(parse(text))))
    regs = {r.name: r for r in registers(mod, text)}
    edits = rewrite(text, regs, ((name, level),))
    assert edits is not None
    new = apply_edits(text, edits)
    assert new is not None and new != text
    return new


def test_registers_found_and_rewritten_without_tools() -> None:
    mod = next(iter(modules(parse(DELAY))))
    assert [r.name for r in registers(mod, DELAY)] == ["d1", "d2", "v1", "v2"]
    child = _variant(DELAY, "d1", "free")
    assert "d1 <= 4'd0" not in child and "d1 <= id;" in child and "?" not in child.split("// d1")[1].split("end")[0]
    kept = _variant(SEEN_HOLD, "r", "reset")
    assert "r <= 4'd0" not in kept and "if (en)" in kept.split("// r")[1]


@pytest.mark.tools
@pytest.mark.slow
def test_delay_line_data_stages_lose_reset_enable_and_clear_proven(tmp_path: Path) -> None:
    kids = _children(DELAY)
    assert len(kids) == 1, kids
    child = kids[0]
    assert "d1 <= 4'd0" not in child and "d2 <= 4'd0" not in child  # resets gone
    assert "d1 <= id;" in child and "d2 <= d1;" in child  # loaded every cycle: no clear, no enable
    assert "v1 <= 1'b0" in child and "v2 <= 1'b0" in child  # the valid chain keeps its reset (observed)
    v = _prove(tmp_path, DELAY, child)
    assert v.kind == "proven", v.summary()


@pytest.mark.tools
@pytest.mark.slow
def test_an_observable_reset_value_is_refuted_and_not_offered(tmp_path: Path) -> None:
    v = _prove(tmp_path / "p", SEEN_RESET, _variant(SEEN_RESET, "r", "reset"))
    assert v.kind == "refuted", v.summary()  # a register without reset starts from any value, not 0
    assert _children(SEEN_RESET) == []


@pytest.mark.tools
@pytest.mark.slow
def test_an_observed_hold_is_refuted_but_the_unseen_reset_goes(tmp_path: Path) -> None:
    v = _prove(tmp_path / "free", SEEN_HOLD, _variant(SEEN_HOLD, "r", "free"))
    assert v.kind == "refuted", v.summary()
    kids = _children(SEEN_HOLD)
    assert len(kids) == 1, kids
    child = kids[0]
    assert "r <= 4'd0" not in child and "if (en)" in child.split("// r")[1]  # reset dropped, enable kept
    assert "v <= 1'b0" in child
    v = _prove(tmp_path / "reset", SEEN_HOLD, child)
    assert v.kind == "proven", v.summary()


def test_the_move_is_in_the_default_rtl_moves() -> None:
    assert "redundant_control" in {m.name for m in rtl_moves()}


@pytest.mark.tools
@pytest.mark.slow
def test_a_skid_register_keeps_one_enable_of_its_conditions_proven(tmp_path: Path) -> None:
    kids = _children(SKID)
    assert len(kids) == 1, kids
    child = kids[0]
    # the clear and the stall condition go: the skid register loads whenever it is empty
    assert "if (!(skid_valid)) skid_data <= s_data;" in child and "skid_data <= 4'd0" not in child
    assert "main_data <= 4'd0" in child  # m_data is a port shown after reset: its reset stays
    v = _prove(tmp_path, SKID, child)
    assert v.kind == "proven", v.summary()
