"""Sequential invariants at bit level (issue 30, item 2): register bits constant, or equal (or inverted) to
another register's bit, from reset. Candidates come from a random simulation of the design itself, PDR
proves them in one batch, and ``bit_invariant`` rewrites the register as a continuous assign of its proven
bits; each child is proven against its parent by the real engines at small widths. The negative cases: a
bit that does change is neither claimed nor proven, and a rewrite forced on it is refuted."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import Reset
from hyperheurist.config.design import DesignConfig
from hyperheurist.config.limits import Limits
from hyperheurist.config.verification import Verification
from hyperheurist.formal.bitclaims import BitJob, find_bits
from hyperheurist.formal.invariants import Claim, InvariantJob, find
from hyperheurist.formal.verdict import Verdict
from hyperheurist.recipe import Recipe
from hyperheurist.rewrite.interface import module_interface
from hyperheurist.rewrite.prove import ProofTask, prove_rewrite
from hyperheurist.search.moves import rtl_moves
from hyperheurist.search.moves.bitinvariants import BitInvariant, bit_registers, combine, register_site
from hyperheurist.search.moves.expr import Widths
from hyperheurist.search.moves.verilog import apply_edits, modules, parse
from hyperheurist.search.state import MoveContext, State

pytestmark = [pytest.mark.tools, pytest.mark.slow]

RST = Reset(name="rst", active="high")

# an integer step index 0..5: bits 31:3 are 0 in every reachable state (not 1-inductive: PDR strengthens)
STEPS = """module t(input clk, input rst, input adv, output [2:0] step, output last);
  integer idx;
  always @(posedge clk)
    if (rst) idx <= 0;
    else if (adv) begin
      if (idx == 5) idx <= 0;
      else idx <= idx + 1;
    end
  assign step = idx[2:0];
  assign last = (idx == 5);
endmodule
"""
# a 5-bit count of halves beside a 4-bit count: half is always {cnt, 1'b0}; down is always ~cnt
COPIES = """module t(input clk, input rst, input go, output reg [3:0] cnt, output [4:0] h, output [3:0] d);
  reg [4:0] half;
  reg [3:0] down;
  always @(posedge clk)
    if (rst) begin
      cnt <= 4'd0;
      half <= 5'd0;
      down <= 4'hf;
    end else if (go) begin
      cnt <= cnt + 4'd1;
      half <= half + 5'd2;
      down <= down - 4'd1;
    end
  assign h = half;
  assign d = down;
endmodule
"""
# a signed level held in -4..3: bits 7:2 all equal the sign
LEVEL = """module t(input clk, input rst, input up, input dn, output [2:0] v, output neg);
  reg signed [7:0] acc;
  always @(posedge clk)
    if (rst) acc <= 8'sd0;
    else if (up && acc != 8'sd3) acc <= acc + 8'sd1;
    else if (dn && acc != -8'sd4) acc <= acc - 8'sd1;
  assign v = acc[2:0];
  assign neg = acc < 8'sd0;
endmodule
"""
# a decimal digit 0..9 in 4 bits: bit 3 is set at 8 and 9
DIGIT = """module t(input clk, input rst, input inc, output reg [3:0] c);
  always @(posedge clk)
    if (rst) c <= 4'd0;
    else if (inc) c <= (c == 4'd9) ? 4'd0 : c + 4'd1;
endmodule
"""

# a counter to 5000 in 16 bits: its bits 12:9 change only after more cycles than the simulation runs
DEEP = """module t(input clk, input rst, input en, output tick);
  reg [15:0] c;
  always @(posedge clk)
    if (rst) c <= 16'd0;
    else if (en) c <= (c == 16'd5000) ? 16'd0 : c + 16'd1;
  assign tick = c == 16'd5000;
endmodule
"""


def _ctx(text: str) -> MoveContext:
    iface = module_interface(text, "t", clock="clk", reset=RST)
    design = DesignConfig.model_construct(name="t", top="t", interface=iface, limits=Limits(), tunables=[],
                                          verification=Verification.model_construct())
    return MoveContext(design=design, flow=None)  # type: ignore[arg-type]


def _children(text: str) -> list[str]:
    start = State(Candidate.from_text(text, "t"), Recipe())
    return [s.candidate.files[0][1] for s in BitInvariant().neighbours(start, _ctx(text), random.Random(0))]


def _prove(tmp_path: Path, parent: str, child: str) -> Verdict:
    iface = module_interface(parent, "t", clock="clk", reset=RST)
    return prove_rewrite(ProofTask(parent, child, "t", iface, depth=16), tmp_path)


def _bits(text: str, regs: tuple[tuple[str, int], ...], tmp_path: Path) -> set[str]:
    iface = module_interface(text, "t", clock="clk", reset=RST)
    return {c.describe() for c in find_bits(BitJob({"t.v": text}, "t", iface, regs, cpu_s=4), folder=tmp_path)}


def test_upper_bits_proven_zero_narrow_the_register(tmp_path: Path) -> None:
    assert _bits(STEPS, (("idx", 32),), tmp_path / "bits") == {f"idx[{b}] == 1'b0" for b in range(3, 32)}
    kids = _children(STEPS)
    assert len(kids) == 1, kids
    child = kids[0]
    # the flops keep their type and loads; every read sees the proven value: bits 31:3 are 0
    assert "integer idx_ff;" in child and "wire signed [31:0] idx;" in child and "idx_ff <= idx + 1;" in child
    assert "assign idx = {29'd0, idx_ff[2:0]};" in child
    v = _prove(tmp_path / "prove", STEPS, child)
    assert v.kind == "proven", v.summary()


def test_bits_equal_to_the_sign_become_a_sign_extension(tmp_path: Path) -> None:
    kids = _children(LEVEL)
    assert len(kids) == 1, kids
    child = kids[0]
    assert "reg signed [7:0] acc_ff;" in child and "wire signed [7:0] acc;" in child
    assert "assign acc = {{6{acc_ff[2]}}, acc_ff[1:0]};" in child
    v = _prove(tmp_path / "prove", LEVEL, child)
    assert v.kind == "proven", v.summary()


def test_registers_equal_to_bits_of_another_become_assigns(tmp_path: Path) -> None:
    got = _bits(COPIES, (("cnt", 4), ("half", 5), ("down", 4)), tmp_path / "bits")
    assert got == {"half[0] == 1'b0", *(f"half[{b + 1}] == cnt[{b}]" for b in range(4)),
                   *(f"down[{b}] == ~cnt[{b}]" for b in range(4))}
    kids = _children(COPIES)
    both = [k for k in kids if "assign half = {cnt, 1'd0};" in k and "assign down = ~cnt;" in k]
    assert len(kids) == 3 and len(both) == 1, kids  # half alone, down alone, both
    child = both[0]
    # their updates are gone, cnt's stay
    assert "half <=" not in child and "down <=" not in child and "cnt <= cnt + 4'd1;" in child
    assert "wire [4:0] half;" in child and "wire [3:0] down;" in child
    for k, kid in enumerate(kids):
        v = _prove(tmp_path / f"prove{k}", COPIES, kid)
        assert v.kind == "proven", (kid, v.summary())


def test_an_output_register_port_becomes_a_wire(tmp_path: Path) -> None:
    ported = COPIES.replace("output [4:0] h", "output reg [4:0] half").replace("  reg [4:0] half;\n", "") \
        .replace("  assign h = half;\n", "")
    kids = _children(ported)
    child = next(k for k in kids if "down" not in k.split("assign half")[-1] and "assign half" in k)
    assert "output wire [4:0] half" in child and "half <=" not in child
    v = _prove(tmp_path / "prove", ported, child)
    assert v.kind == "proven", v.summary()


def test_a_bit_that_changes_is_not_claimed_and_its_removal_is_refuted(tmp_path: Path) -> None:
    # bits 0..3 all change (8 and 9 set bit 3): nothing is claimed, so the move offers nothing
    assert _bits(DIGIT, (("c", 4),), tmp_path / "bits") == set()
    assert _children(DIGIT) == []
    # claimed anyway, induction does not prove it
    iface = module_interface(DIGIT, "t", clock="clk", reset=RST)
    claim = (Claim("c", 4, value=0, bit=3), Claim("c", 4, value=0, bit=2))
    assert find(InvariantJob({"t.v": DIGIT}, "t", iface, claim, cpu_s=4), folder=tmp_path / "inv") == frozenset()
    # forced, the proof refutes it: c is an output and reaches 8
    tree = parse(DIGIT)
    mod = modules(tree)[0]
    widths = Widths(tree).get()
    reg = bit_registers(mod, DIGIT, widths)["c"]
    site = register_site(mod, DIGIT, reg, {3: (0, "", 0, False)}, widths)
    assert site is not None
    forced = apply_edits(DIGIT, combine(mod, DIGIT, [site]))
    assert forced is not None and "assign c = {1'd0, c_ff[2:0]};" in forced
    v = _prove(tmp_path / "forced", DIGIT, forced)
    assert v.kind == "refuted", v.summary()


def test_a_register_still_changing_late_in_the_simulation_is_not_claimed_about(tmp_path: Path) -> None:
    # its upper bits looked constant only because the run was short: no claim is sent to induction
    assert _bits(DEEP, (("c", 16),), tmp_path / "bits") == set()
    assert (tmp_path / "bits" / "yosys-observe.stdout").exists()
    assert not (tmp_path / "bits" / "abc-pdr-invariants.stdout").exists()


def test_the_move_is_in_the_default_rtl_moves() -> None:
    assert "bit_invariant" in {m.name for m in rtl_moves()}
