"""The deterministic RTL moves on small Verilog snippets: rewrites parse, compile with Icarus and,
simulated side by side with the original under random stimulus, behave the same."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.recipe import Recipe
from hyperheurist.runner import run_tool
from hyperheurist.search.moves import rtl_moves
from hyperheurist.search.moves.arith import BalanceChain, ConstMultShiftAdd, csd
from hyperheurist.search.moves.fsm import FsmEncoding
from hyperheurist.search.moves.registers import DropDatapathReset, EnableGating
from hyperheurist.search.moves.verilog import parse, semantic_errors, syntax_errors
from hyperheurist.search.state import MoveContext, State

CTX = MoveContext(design=None, flow=None)  # type: ignore[arg-type]  # RTL moves read only the text

ARITH = """module arith(input [7:0] x, input signed [7:0] s, input [7:0] a, b, c, d, e,
             output [15:0] y, output [15:0] sh, output signed [15:0] z, output signed [15:0] t,
             output [9:0] sum, output [7:0] w, output [15:0] prod);
  localparam P = 3 * 5;  // constant expression: left alone
  assign y = x * 10;
  assign sh = (x * 8'd23) >> 4;        // width-sensitive context: the product is 8 bits here
  assign z = s * 8'sd7;
  assign t = (s * 4'sb1101) >>> 2;     // a negative signed constant (-3)
  assign sum = a + b + c + d + e;
  assign w = a ^ (b ^ c) ^ d & e;
  assign prod = a * b * c * d;
endmodule
"""
ARITH_PORTS = {"x": 8, "s": 8, "a": 8, "b": 8, "c": 8, "d": 8, "e": 8}

FSM = """module ctrl(input clk, input rst_n, input go, input stop, output busy, output done);
  localparam [1:0] IDLE = 2'd0, RUN = 2'd1, WAIT = 2'd2, DONE = 2'd3;
  reg [1:0] state, nxt;
  always @(posedge clk or negedge rst_n)
    if (!rst_n) state <= IDLE; else state <= nxt;
  always @* begin
    nxt = state;
    case (state)
      IDLE: if (go) nxt = RUN;
      RUN: nxt = stop ? WAIT : RUN;
      WAIT: if (!stop) nxt = DONE;
      DONE: nxt = IDLE;
      default: nxt = IDLE;
    endcase
  end
  assign busy = (state == RUN) || (state == WAIT);
  assign done = state == DONE;
endmodule
"""

PIPE = """module pipe(input clk, input rst_n, input in_valid, input [7:0] a, b,
            output out_valid, output [15:0] y);
  reg v1, v2;
  reg [7:0] a1, b1;
  reg [15:0] m2;
  always @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      v1 <= 1'b0;
      a1 <= 8'd0;
      b1 <= 8'd0;
      v2 <= 1'b0;
      m2 <= 16'd0;
    end else begin
      v1 <= in_valid;
      a1 <= a;
      b1 <= b;
      v2 <= v1;
      m2 <= a1 * b1;
    end
  end
  assign out_valid = v2;
  assign y = v2 ? m2 : 16'd0;
endmodule
"""


def state_of(text: str, top: str) -> State:
    return State(Candidate.from_text(text, top), Recipe())


def exhaust(move, st: State, seed: int = 0, limit: int = 12) -> tuple[State, int]:
    """Apply a move repeatedly until it no longer applies; returns the last state and the count."""
    rng = random.Random(seed)
    n = 0
    for _ in range(limit):
        new = move.propose(st, CTX, rng)
        if new is None:
            break
        assert new.key != st.key and new.candidate.move == move.name and new.candidate.parent == st.candidate.digest
        st, n = new, n + 1
    return st, n


def text_of(st: State) -> str:
    return st.candidate.files[0][1]


def make_testbench(top: str, ins: dict[str, int], outs: list[str], clocked: bool, cycles: int = 300) -> str:
    decl = "\n".join(f"  reg [{w - 1}:0] {n};" for n, w in ins.items())
    conns = ", ".join([f".{n}({n})" for n in ins] + (["clk(clk)", "rst_n(rst_n)"] if clocked else []))
    conns = conns.replace("clk(clk)", ".clk(clk)").replace("rst_n(rst_n)", ".rst_n(rst_n)")
    wires = "\n".join(f"  wire [31:0] {o}_ref, {o}_new;" for o in outs)
    ref = ", ".join(f".{o}({o}_ref)" for o in outs)
    new = ", ".join(f".{o}({o}_new)" for o in outs)
    drive = "\n".join(f"      {n} = $random(seed);" for n in ins)
    check = "\n".join(
        f'      if (i > 0 && {o}_ref !== {o}_new) begin errors = errors + 1; '
        f'$display("MISMATCH {o} %0d: %h vs %h", i, {o}_ref, {o}_new); end'
        for o in outs)
    step = "#1 clk = 1; #4 clk = 0; #1;" if clocked else "#5;"
    return f"""`timescale 1ns/1ps
module tb;
  reg clk = 0, rst_n = 0;
  integer i, errors = 0, seed = 7;
{decl}
{wires}
  {top} u_ref({conns}, {ref});
  {top}_new u_new({conns}, {new});
  initial begin
    for (i = 0; i < {cycles}; i = i + 1) begin
{drive}
      if (i == 3) rst_n = 1;
      {step}
{check}
    end
    if (errors == 0) $display("PASSED"); else $display("FAILED %0d", errors);
    $finish;
  end
endmodule
"""


def iverilog(tmp: Path, files: dict[str, str]) -> tuple[bool, str]:
    for name, text in files.items():
        (tmp / name).write_text(text)
    res = run_tool(["iverilog", "-g2012", "-o", "sim.vvp", *files], name="iverilog", log_dir=tmp, timeout_s=60, cwd=tmp)
    return res.ok, res.stdout + res.stderr


def same_behaviour(tmp: Path, old: str, new: str, top: str, ins: dict[str, int], outs: list[str], clocked: bool) -> str:
    renamed = re.sub(rf"\bmodule\s+{top}\b", f"module {top}_new", new, count=1)
    ok, log = iverilog(tmp, {"ref.v": old, "new.v": renamed, "tb.v": make_testbench(top, ins, outs, clocked)})
    assert ok, log
    res = run_tool(["vvp", "-n", "sim.vvp"], name="vvp", log_dir=tmp, timeout_s=60, cwd=tmp)
    assert res.ok, res.describe()
    return res.stdout


def assert_clean(text: str) -> None:
    assert syntax_errors(parse(text)) == 0 and semantic_errors([text]) == 0, text


def test_csd_recoding_is_exact_and_sparse():
    for v in range(-300, 300):
        digits = csd(v)
        assert sum(d << k for k, d in digits) == v
        ks = [k for k, _ in digits]
        assert all(b - a >= 2 for a, b in zip(ks, ks[1:], strict=False))  # non-adjacent form


@pytest.mark.tools
def test_const_mult_and_balance_keep_behaviour(tmp_path):
    st, n_mult = exhaust(ConstMultShiftAdd(), state_of(ARITH, "arith"))
    assert n_mult == 4  # x*10, x*8'd23, s*8'sd7, s*4'sb1101; P = 3*5 is a constant expression
    st, n_bal = exhaust(BalanceChain(), st)
    assert n_bal == 3  # sum, w (the & binds tighter: a ^ (b^c) ^ (d&e)), prod
    new = text_of(st)
    assert "*" not in new.split("assign y")[1].split(";")[0] and "localparam P = 3 * 5;" in new
    assert "((a + b) + c) + (d + e)" in new and "(a * b) * (c * d)" in new
    assert_clean(new)
    out = same_behaviour(tmp_path, ARITH, new, "arith", ARITH_PORTS,
                         ["y", "sh", "z", "t", "sum", "w", "prod"], clocked=False)
    assert "PASSED" in out and "MISMATCH" not in out, out


@pytest.mark.tools
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_fsm_encoding_keeps_behaviour(tmp_path, seed):
    new_state = FsmEncoding().propose(state_of(FSM, "ctrl"), CTX, random.Random(seed))
    assert new_state is not None
    new = text_of(new_state)
    assert_clean(new)
    if "4'b0001" in new:  # one-hot: codes and both state registers widened
        assert "localparam [3:0] IDLE = 4'b0001" in new and "reg [3:0] state, nxt;" in new
    out = same_behaviour(tmp_path, FSM, new, "ctrl", {"go": 1, "stop": 1}, ["busy", "done"], clocked=True)
    assert "PASSED" in out, out


def test_fsm_encoding_leaves_visible_or_arithmetic_state_alone():
    as_port = FSM.replace("output busy, output done", "output busy, output done, output reg [1:0] state") \
                 .replace("  reg [1:0] state, nxt;", "  reg [1:0] nxt;")
    assert FsmEncoding().propose(state_of(as_port, "ctrl"), CTX, random.Random(0)) is None
    arith = FSM.replace("assign done = state == DONE;", "assign done = state[1];")
    assert FsmEncoding().propose(state_of(arith, "ctrl"), CTX, random.Random(0)) is None


@pytest.mark.tools
@pytest.mark.parametrize("seed", [0, 1])
def test_drop_datapath_reset_keeps_observable_behaviour(tmp_path, seed):
    new_state = DropDatapathReset().propose(state_of(PIPE, "pipe"), CTX, random.Random(seed))
    assert new_state is not None
    new = text_of(new_state)
    assert_clean(new)
    assert "v1 <= 1'b0;" in new and "v2 <= 1'b0;" in new  # control registers keep their reset
    assert "always @(posedge clk) begin" in new
    out = same_behaviour(tmp_path, PIPE, new, "pipe", {"in_valid": 1, "a": 8, "b": 8}, ["out_valid", "y"], clocked=True)
    assert "PASSED" in out, out


@pytest.mark.tools
def test_enable_gating_uses_the_stage_valid(tmp_path):
    st, n = exhaust(EnableGating(), state_of(PIPE, "pipe"))
    new = text_of(st)
    assert n == 3 and "if (in_valid) a1 <= a;" in new and "if (in_valid) b1 <= b;" in new
    assert "if (v1) m2 <= a1 * b1;" in new  # v1 is the valid that travels with a1 and b1
    assert_clean(new)
    out = same_behaviour(tmp_path, PIPE, new, "pipe", {"in_valid": 1, "a": 8, "b": 8}, ["out_valid", "y"], clocked=True)
    assert "PASSED" in out, out


def test_moves_do_not_apply_where_nothing_matches_and_reject_broken_input():
    plain = "module t(input [3:0] a, b, output [3:0] y);\n  assign y = a & b;\nendmodule\n"
    broken = "module t(input a, output y);\n  assign y = a +;\nendmodule\n"
    for move in rtl_moves():
        assert move.propose(state_of(plain, "t"), CTX, random.Random(0)) is None
        assert move.propose(state_of(broken, "t"), CTX, random.Random(0)) is None


def test_macro_generated_code_is_not_rewritten():
    text = "`define MUL(a) (a * 10)\nmodule t(input [7:0] x, output [15:0] y);\n  assign y = `MUL(x);\nendmodule\n"
    assert ConstMultShiftAdd().propose(state_of(text, "t"), CTX, random.Random(0)) is None


def test_semantic_errors_elaborates_several_files_together() -> None:
    """A multi-file candidate: pyslang refuses trees from several SourceManagers, so every RTL move's
    re-check crashed on it."""
    top = "module a(input x, output y); b u(.x(x), .y(y)); endmodule"
    assert semantic_errors([top, "module b(input x, output y); assign y = x; endmodule"]) == 0
    assert semantic_errors([top, "module b(input x, output y); assign y = nope; endmodule"]) == 1


def test_a_move_lists_its_distinct_rewrites_for_the_greedy_finish():
    """``neighbours`` (``search/polish.py``): one child per site, distinct, at most MAX_NEIGHBOURS, each one
    ``propose`` can return; the same generator seed gives the same list."""
    from hyperheurist.search.moves.rtl import MAX_NEIGHBOURS

    start = state_of(ARITH, "arith")
    move = ConstMultShiftAdd()  # four sites: x*10, x*8'd23, s*8'sd7, s*4'sb1101
    kids = move.neighbours(start, CTX, random.Random(1))
    assert len(kids) == min(4, MAX_NEIGHBOURS) and len({k.key for k in kids}) == len(kids)
    assert all(k.key != start.key and k.recipe == start.recipe for k in kids)
    proposed = {move.propose(start, CTX, random.Random(s)).key for s in range(40)}
    assert {k.key for k in kids} == proposed
    assert [k.key for k in move.neighbours(start, CTX, random.Random(1))] == [k.key for k in kids]
    assert BalanceChain().neighbours(state_of(FSM, "ctrl"), CTX, random.Random(1)) == []
