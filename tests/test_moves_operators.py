"""The operator library (moves/operators.py, moves/oparch.py): every architecture exhaustively equal to
the plain operator at widths 1..6 (Icarus, all inputs, several operand/result shapes), the move's
output proven equal to its parent at 32 bits (the relations > and <= at 16; multipliers at 6) by the formal engines
and, for multipliers at the move's widest (8 bits), equal on all 2**16 inputs (Icarus), a broken architecture caught
by both, the move refusing signed code, parameterised widths and contexts it cannot size, and its output passing
the compile and structure gates."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
import yaml

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.config.interface import Reset
from hyperheurist.formal.verdict import Verdict
from hyperheurist.gating import run_gates
from hyperheurist.recipe import Recipe
from hyperheurist.rewrite.interface import module_interface
from hyperheurist.rewrite.prove import ProofTask, accepted, prove_rewrite
from hyperheurist.runner import run_tool
from hyperheurist.search.moves.oparch import ALL_ARCHS, Arch, adder
from hyperheurist.search.moves.operators import KEPT, MAX_WIDTH, OperatorLibrary
from hyperheurist.search.moves.verilog import apply_edits, clean_rewrite, parse
from hyperheurist.search.state import MoveContext, State

CTX = MoveContext(design=None, flow=None)  # type: ignore[arg-type]  # RTL moves read only the text
PLAIN = {"add": "a + b", "addc": "a + b + c", "sub": "a - b", "lt": "a < b", "mul": "a * b", "dec": "1 << a"}


def shapes(op: str, n: int) -> list[tuple[int, int, int]]:
    """(width of a (or s), width of b, result width): equal operands, narrower and wider ones, results
    narrower and wider than the operator's natural width."""
    m = max(1, n - 2)
    add = [(n, n, n + 1), (n, m, n), (m, n, n + 3)]
    return {"add": add, "addc": add, "sub": [(n, n, n), (n, m, n + 2), (m, n, m)],
            "lt": [(n, n, 1), (n, m, 1), (m, n, 1)], "mul": [(n, n, 2 * n), (n, n // 2 + 1, n + 1), (m, n, m)],
            "dec": [(n, 0, 1 << n), (n, 0, max(1, (1 << n) - 3)), (n, 0, (1 << n) + 2)]}[op]


def exhaustive_bench(arch: Arch, widths: range) -> tuple[str, str]:
    """Modules of ``arch`` at every shape and a bench driving each with all inputs against the operator."""
    mods, blocks = [], []
    for n in widths:
        for wa, wb, r in shapes(arch.op, n):
            k = len(blocks)
            name = f"dut_{arch.op}_{arch.name}_{k}"
            mods.append(arch.make(name, wa, wb, r))
            conn = {"dec": ".s(a)", "addc": ".a(a), .b(b), .c(c)"}.get(arch.op, ".a(a), .b(b)")
            cw = 2 if arch.op == "addc" else 1  # the carry in's values
            blocks.append(f"""  if (1) begin : t{k}
    reg [{wa - 1}:0] a; reg [{max(wb, 1) - 1}:0] b; reg c; reg [{r - 1}:0] e; wire [{r - 1}:0] y; integer i, j, k;
    {name} dut({conn}, .y(y));
    initial begin
      for (i = 0; i < {1 << wa}; i = i + 1)
        for (j = 0; j < {1 << wb}; j = j + 1)
          for (k = 0; k < {cw}; k = k + 1) begin
            a = i; b = j; c = k; e = {PLAIN[arch.op]}; #1;
            if (y !== e) begin
              errors = errors + 1;
              if (errors < 4) $display("MISMATCH {name} a=%0d b=%0d c=%0d y=%0d expected %0d", a, b, c, y, e);
            end
          end
      done = done + 1;
    end
  end""")
    bench = ("module tb;\n  integer errors = 0, done = 0;\n  generate\n" + "\n".join(blocks) + "\n  endgenerate\n"
             f"  initial begin\n    wait (done == {len(blocks)});\n"
             '    if (errors == 0) $display("PASSED"); else $display("FAILED %0d", errors);\n'
             "    $finish;\n  end\nendmodule\n")
    return "\n".join(mods), bench


def simulate(folder: Path, modules: str, bench: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mods.v").write_text(modules)
    (folder / "tb.v").write_text(bench)
    res = run_tool(["iverilog", "-g2012", "-o", "sim.vvp", "mods.v", "tb.v"], name="iverilog", log_dir=folder,
                   timeout_s=120, cwd=folder)
    assert res.ok, res.stdout + res.stderr
    res = run_tool(["vvp", "-n", "sim.vvp"], name="vvp", log_dir=folder, timeout_s=600, cwd=folder)
    assert res.ok, res.describe()
    return res.stdout


def prove(parent: str, child: str, folder: Path, clock: str | None = None, reset: Reset | None = None) -> Verdict:
    iface = module_interface(parent, "t", clock, reset)
    return prove_rewrite(ProofTask(parent, child, "t", iface, timeout_s=300), folder)


def options(text: str) -> dict[str, str]:
    """architecture label -> the rewritten file, for every option of the move (one site per test file)."""
    out = {}
    for label, edits in OperatorLibrary().options(text, parse(text)):
        new = apply_edits(text, edits)
        assert new is not None and clean_rewrite(text, new), (label, new)
        out[label] = new
    return out


def broken_adder(name: str, wa: int, wb: int, r: int) -> str:
    """A Kogge-Stone adder with one carry dropped: a group generate of the second level loses its
    propagated term (``g = gi | (pi & gk)`` becomes ``g = gi``)."""
    text = adder(name, wa, wb, r, "ks")
    combines = re.findall(r"wire (g\d+) = (g\d+) \| \(\w+ & g\d+\);", text)
    victim = combines[len(combines) // 2]
    return re.sub(rf"wire {victim[0]} = [^;]*;", f"wire {victim[0]} = {victim[1]};", text)


@pytest.mark.tools
@pytest.mark.parametrize("arch", ALL_ARCHS, ids=[f"{a.op}-{a.name}" for a in ALL_ARCHS])
def test_architecture_is_exhaustively_equal_at_small_widths(tmp_path: Path, arch: Arch) -> None:
    out = simulate(tmp_path, *exhaustive_bench(arch, range(1, 7)))
    assert "PASSED" in out and "MISMATCH" not in out, out


@pytest.mark.tools
def test_broken_architecture_is_caught(tmp_path: Path) -> None:
    """The checks can fail: a dropped carry shows in simulation and the proof refutes it."""
    ks = next(a for a in ALL_ARCHS if a.op == "add" and a.name == "ks")
    broken = Arch("ks", "add", lambda m, wa, wb, r: broken_adder(m, wa, wb, r))
    assert broken.make("x", 6, 6, 7) != ks.make("x", 6, 6, 7)
    out = simulate(tmp_path / "sim", *exhaustive_bench(broken, range(4, 7)))
    assert "FAILED" in out and "MISMATCH" in out, out
    parent = "module t(input [15:0] a, b, output [16:0] y);\n  assign y = a + b;\nendmodule\n"
    good = options(parent)["add:ks"]
    name = "oplib_ks_add_16_16_17_t"
    bad = good.replace(ks.make(name, 16, 16, 17), broken_adder(name, 16, 16, 17))
    assert bad != good
    v = prove(parent, bad, tmp_path / "proof")
    assert v.kind == "refuted" and not accepted(v), v.summary()


def operator_design(op: str, n: int) -> str:
    if op == "dec":
        k = n.bit_length() - 1
        return f"module t(input [{k - 1}:0] s, output [{n - 1}:0] y);\n  assign y = 1 << s;\nendmodule\n"
    if op == "addc":  # benchmarks/adder32's form: a concatenated target, zero-extended operands, a carry in
        return (f"module t(input [{n - 1}:0] a, b, input ci, output [{n - 1}:0] s, output co);\n"
                f"  assign {{co, s}} = {{1'b0, a}} + {{1'b0, b}} + {{{n}'d0, ci}};\nendmodule\n")
    out = {"add": n + 1, "sub": n, "lt": 1, "mul": 2 * n, "gt": 1, "le": 1, "ge": 1}[op]
    expr = {"add": "a + b", "sub": "a - b", "lt": "a < b", "mul": "a * b", "gt": "a > b", "le": "a <= b",
            "ge": "a >= b"}[op]
    return f"module t(input [{n - 1}:0] a, b, output [{out - 1}:0] y);\n  assign y = {expr};\nendmodule\n"


# one wide case per operator: the generators' every branch is the exhaustive check's at 1..6 bits (carry-select's
# uneven last block at 5, every prefix level count to 6), so a 16-bit proof only repeated the 32-bit one.
# Multipliers: proven at 6 bits (both architectures at 8 took 12 s quiet, 32 s at load 6.5; at 6, 1.6 s) and
# simulated on every input at 8 bits, the widest the move takes (test_widest_multiplier_output_is_exact).
PROOFS = [(op, 32) for op in ("add", "addc", "sub", "lt", "dec")]
PROOFS += [("mul", 6), ("gt", 16), ("le", 16), ("ge", 32)]


@pytest.mark.tools
@pytest.mark.slow
@pytest.mark.parametrize("op,n", PROOFS, ids=[f"{op}{n}" for op, n in PROOFS])
def test_move_output_is_proven(tmp_path: Path, op: str, n: int) -> None:
    parent = operator_design(op, n)
    found = options(parent)
    kind = {"gt": "lt", "le": "lt", "ge": "lt"}.get(op, op)
    assert sorted(found) == sorted(f"{kind}:{a}" for a in KEPT[kind])
    for label, child in found.items():
        v = prove(parent, child, tmp_path / label.replace(":", "_"))
        assert accepted(v), (label, v.summary())


@pytest.mark.tools
def test_widest_multiplier_output_is_exact(tmp_path: Path) -> None:
    """The move's output for a multiplier of its widest operands (MAX_WIDTH: 8 bits), every architecture, equal to
    ``a * b`` on all 2**16 inputs: as complete as a proof for this combinational function, in a second."""
    n = MAX_WIDTH["mul"]
    found = options(operator_design("mul", n))
    assert sorted(found) == sorted(f"mul:{a}" for a in KEPT["mul"])
    mods, duts, compares = [], [], []
    for k, child in enumerate(found.values()):
        assert child.count("module t(") == 1
        mods.append(child.replace("module t(", f"module t{k}("))  # the library's modules are named per architecture
        duts.append(f"  wire [{2 * n - 1}:0] y{k};\n  t{k} u{k}(.a(a), .b(b), .y(y{k}));\n")
        compares.append(f"      if (y{k} !== a * b) begin\n        errors = errors + 1;\n"
                        f'        if (errors < 4) $display("MISMATCH t{k} a=%0d b=%0d y=%0d", a, b, y{k});\n'
                        "      end\n")
    bench = (f"module tb;\n  reg [{n - 1}:0] a, b; integer i, errors;\n" + "".join(duts)
             + f"  initial begin\n    errors = 0;\n    for (i = 0; i < {1 << 2 * n}; i = i + 1) begin\n"
             "      {a, b} = i; #1;\n" + "".join(compares) + "    end\n"
             '    if (errors == 0) $display("PASSED"); else $display("FAILED %0d", errors);\n'
             "    $finish;\n  end\nendmodule\n")
    out = simulate(tmp_path, "\n".join(mods), bench)
    assert "PASSED" in out and "MISMATCH" not in out, out


SIGNED = "module t(input signed [7:0] a, b, output signed [8:0] y);\n  assign y = a + b;\nendmodule\n"
# a module whose parameter an instance assigns: its instances may differ, so it is not specialised
PARAM = ("module t(input [7:0] a, b, output [8:0] y);\n  add #(.W(8)) u (.a(a), .b(b), .y(y));\nendmodule\n"
         "module add #(parameter W = 4) (input [W-1:0] a, b, output [W:0] y);\n  assign y = a + b;\nendmodule\n")
INTEGER = "module t(input [7:0] a, b, output [8:0] y);\n  integer k;\n  assign y = a + b;\nendmodule\n"
LEFT_ALONE = [
    SIGNED, PARAM, INTEGER,
    # a sum inside a sum: its width comes from the context, which the move does not size
    "module t(input [7:0] a, b, c, output [9:0] y);\n  assign y = a + b + c;\nendmodule\n",
    # operators in always blocks (operands may be variables assigned earlier in the block)
    "module t(input [7:0] a, b, output reg [8:0] y);\n  always @* y = a + b;\nendmodule\n",
    # an operand updated by a blocking assignment in the always block (its mid-block value)
    "module t(input clk, input [7:0] a, b, output reg [8:0] y, output reg z);\n  reg [7:0] tmp;\n"
    "  always @(posedge clk) begin\n    tmp = a;\n    y <= tmp + b;\n    z <= tmp < b;\n  end\nendmodule\n",
    # an explicit sensitivity list: the block would run before the instance's output followed a or b
    "module t(input [7:0] a, b, output reg y);\n  always @(a or b) y = a < b;\nendmodule\n",
    # a generate block
    "module t(input [7:0] a, b, output [8:0] y);\n  generate if (1) begin : g\n    assign y = a + b;\n  end\n"
    "  endgenerate\nendmodule\n",
    # a multiplier wider than the proofs can take, a constant comparison, a part-select operand
    "module t(input [11:0] a, b, output [23:0] y);\n  assign y = a * b;\nendmodule\n",
    "module t(input [7:0] a, output y);\n  assign y = a < 8'd5;\nendmodule\n",
    "module t(input [7:0] a, b, output [4:0] y);\n  assign y = a[3:0] + b[3:0];\nendmodule\n",
]


@pytest.mark.parametrize("text", LEFT_ALONE, ids=range(len(LEFT_ALONE)))
def test_move_leaves_alone_what_it_cannot_size(text: str) -> None:
    st = State(Candidate.from_text(text, "t"), Recipe())
    assert all(OperatorLibrary().propose(st, CTX, random.Random(seed)) is None for seed in range(3))


SWAP = "module t(input [7:0] a, b, c, output [8:0] y, z);\n  assign y = a + b;\n  assign z = a + c;\nendmodule\n"


def test_sites_in_submodules_and_helpers_are_skipped() -> None:
    """Only modules that elaborate as tops of their file have known widths; the library's own modules
    (which contain + and ^) are never sites: after one substitution the options are the other site's and
    the swaps of the new instance."""
    sub = "module sub(input [3:0] a, b, output [4:0] y);\n  assign y = a + b;\nendmodule\n"
    top = "module t(input [3:0] a, b, output [4:0] y);\n  sub u(.a(a), .b(b), .y(y));\nendmodule\n"
    assert OperatorLibrary().options(sub + top, parse(sub + top)) == []
    first = OperatorLibrary().options(SWAP, parse(SWAP))
    assert len(first) == 2 * len(KEPT["add"])
    once = apply_edits(SWAP, first[0][1])
    assert once is not None and first[0][0] == "add:ks" and "oplib_ks_add_8_8_9_t oplib0 (.a(a), .b(b)" in once
    labels = sorted(label for label, _ in OperatorLibrary().options(once, parse(once)))
    assert labels == sorted([f"add:{a}" for a in KEPT["add"] if a != "ks"] + ["add:plain"] +
                            [f"add:{a}" for a in KEPT["add"]])


def pick(text: str, label: str, k: int = 0) -> str:
    """The file after the k-th option labelled ``label``."""
    edits = [e for lab, e in OperatorLibrary().options(text, parse(text)) if lab == label][k]
    new = apply_edits(text, edits)
    assert new is not None and clean_rewrite(text, new), new
    return new


def test_an_instance_swaps_architecture_or_goes_back_to_the_operator() -> None:
    """The annealer can trade a substituted architecture for another or undo it: the replaced module is
    deleted with its last instance, kept while another instance uses it."""
    both = pick(pick(SWAP, "add:ks"), "add:ks")  # y, then z: one shared module
    assert both.count("module oplib_ks_add_8_8_9_t(") == 1 and "oplib1 (.a(a), .b(c)" in both
    labels = [label for label, _ in OperatorLibrary().options(both, parse(both))]
    assert labels.count("add:plain") == 2 and "add:ks" not in labels and labels.count("add:sk") == 2
    mixed = pick(both, "add:sk")  # one instance: the ks module stays for the other
    assert "module oplib_ks_add_8_8_9_t(" in mixed and "module oplib_sk_add_8_8_9_t(" in mixed
    one = pick(mixed, "add:plain")  # the sk instance back to a + b: its module goes
    assert "module oplib_sk_" not in one and "assign oplib0_y = a + b;" in one and "module oplib_ks_" in one
    none = pick(one, "add:plain")
    assert "oplib_ks" not in none and "module oplib" not in none and none.rstrip().endswith("endmodule")


@pytest.mark.tools
def test_swaps_are_proven(tmp_path: Path) -> None:
    text = SWAP
    for label in ("add:ks", "add:cs", "add:plain"):
        text = pick(text, label)
        assert accepted(prove(SWAP, text, tmp_path / label.replace(":", "_"))), (label, text)
    assert "module oplib" not in text


def test_module_names_differ_between_host_modules() -> None:
    """Two files of one design, each with an 8-bit adder, never both define the same module."""
    one = "module u1(input [7:0] a, b, output [8:0] y);\n  assign y = a + b;\nendmodule\n"
    two = one.replace("u1", "u2")
    first, second = options(one)["add:ks"], options(two)["add:ks"]
    assert "module oplib_ks_add_8_8_9_u1(" in first and "module oplib_ks_add_8_8_9_u2(" in second


def test_relations_and_literals_are_sized_exactly() -> None:
    text = ("module t(input [7:0] a, input [3:0] b, output [8:0] y, output [7:0] z);\n"
            "  assign y = {8'd0, a >= b} + a;\n  assign z = a - 1;\nendmodule\n")
    found = OperatorLibrary().options(text, parse(text))
    labels = sorted({label for label, _ in found})
    assert labels == sorted({f"lt:{a}" for a in KEPT["lt"]} | {f"sub:{a}" for a in KEPT["sub"]})
    lt = next(apply_edits(text, e) for label, e in found if label == "lt:tree")
    assert lt is not None and "{8'd0, (!oplib0_y)} + a" in lt and "oplib_tree_lt_8_4_1_t oplib0 (.a(a), .b(b)" in lt
    sub = next(apply_edits(text, e) for label, e in found if label == "sub:ks")
    assert sub is not None and "oplib_ks_sub_8_32_8_t oplib0 (.a(a), .b(32'd1), .y(oplib0_y));" in sub


@pytest.mark.tools
def test_relations_and_literals_are_proven(tmp_path: Path) -> None:
    text = ("module t(input [7:0] a, input [3:0] b, output [8:0] y, output [7:0] z);\n"
            "  assign y = {8'd0, a >= b} + a;\n  assign z = a - 1;\nendmodule\n")
    for label, child in options(text).items():
        assert accepted(prove(text, child, tmp_path / label.replace(":", "_"))), label


COUNTER = """module t(input clk, input rst, input [7:0] lim, output reg [7:0] q);
  always @(posedge clk)
    if (rst) q <= 8'd0;
    else if (q < lim) q <= q + 8'd1;
endmodule
"""


@pytest.mark.tools
def test_counter_in_an_always_block_is_proven(tmp_path: Path) -> None:
    """``q <= q + 1`` and the condition ``q < lim`` of a clocked block: the instances read the settled
    values, which is what the block reads at the clock edge (a sequential proof from reset)."""
    found = options(COUNTER)
    assert sorted(found) == sorted([f"lt:{a}" for a in KEPT["lt"]] + [f"add:{a}" for a in KEPT["add"]])
    assert ".a(q), .b(8'd1)" in found["add:ks"] and "q <= oplib0_y;" in found["add:ks"]
    for label, child in found.items():
        v = prove(COUNTER, child, tmp_path / label.replace(":", "_"), "clk", Reset(name="rst", active="high"))
        assert accepted(v), (label, v.summary())
    wrong = found["add:ks"].replace(".b(8'd1)", ".b(8'd2)")
    assert prove(COUNTER, wrong, tmp_path / "wrong", "clk", Reset(name="rst", active="high")).kind == "refuted"


MINIMUM = """module t(input [5:0] a, b, output reg [5:0] y);
  always @* begin
    if (a <= b) y = a;
    else y = b;
  end
endmodule
"""


@pytest.mark.tools
def test_condition_in_a_combinational_block_is_proven(tmp_path: Path) -> None:
    found = options(MINIMUM)
    assert sorted(found) == sorted(f"lt:{a}" for a in KEPT["lt"]) and "if ((!oplib0_y)) y = a;" in found["lt:tree"]
    for label, child in found.items():
        assert accepted(prove(MINIMUM, child, tmp_path / label.replace(":", "_"))), label


def gate_design(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "rtl.v").write_text(text)
    (folder / "spec.md").write_text("t: operators\n")
    ports = [{"name": "a", "dir": "input", "width": 8}, {"name": "b", "dir": "input", "width": 8},
             {"name": "s", "dir": "input", "width": 3}, {"name": "y", "dir": "output", "width": 9},
             {"name": "lt", "dir": "output", "width": 1}, {"name": "p", "dir": "output", "width": 16},
             {"name": "d", "dir": "output", "width": 8}]
    cfg = {"name": "t", "top": "t", "spec": "spec.md", "interface": {"ports": ports},
           "verification": {"reference": "rtl.v"}, "ppa": {"clock_period_ns": 10.0}}
    (folder / "design.yaml").write_text(yaml.safe_dump(cfg))
    return folder / "design.yaml"


GATED = """module t(input [7:0] a, b, input [2:0] s, output [8:0] y, output lt, output [15:0] p, output [7:0] d);
  assign y = a + b;
  assign lt = a < b;
  assign p = a * b;
  assign d = 1 << s;
endmodule
"""


@pytest.mark.tools
def test_move_output_passes_the_gates(tmp_path: Path) -> None:
    """Every option on a design with one site per operator passes compile (Icarus, Verilator lint) and
    structure (ports, latches, loops, undriven nets); the gates run on the move's output as the annealer's
    proposals do."""
    design = load_design(gate_design(tmp_path / "design", GATED))
    found = options(GATED)
    assert {label.split(":")[0] for label in found} == {"add", "lt", "mul", "dec"}
    for label, child in found.items():
        report = run_gates(Candidate.from_text(child, "t"), design, tmp_path / label.replace(":", "_"),
                           only=["compile", "structure"])
        assert report.passed, (label, report.failed)
