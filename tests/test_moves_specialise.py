"""Parameter specialisation: fixed-widths moves work on a parameterised file with its parameters frozen at
the candidate's values, and the child carries that specialisation (checked by elaboration, by the moves,
and with the real tools: the evaluation pipeline proves such a child against its parent's overrides)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from pyslang import syntax

from hyperheurist.candidate import Candidate
from hyperheurist.config import DesignConfig
from hyperheurist.config.loader import load_design
from hyperheurist.config.search import Tunable
from hyperheurist.evaluate import EvalTask, evaluate
from hyperheurist.hdl.parse import parse
from hyperheurist.hdl.ports import read_module
from hyperheurist.recipe import Recipe
from hyperheurist.rewrite.interface import module_interface
from hyperheurist.rewrite.prove import ProofTask, prove_rewrite
from hyperheurist.search.moves.expr import Syntax
from hyperheurist.search.moves.operators import OperatorLibrary
from hyperheurist.search.moves.params import TunableParamMove, bake_parameters, declared_parameters
from hyperheurist.search.moves.rtl import RtlMove
from hyperheurist.search.moves.specialise import Specialised, specialise
from hyperheurist.search.moves.verilog import Edit, modules, overridable_declarations
from hyperheurist.search.moves.wordlevel import DecoderCompare
from hyperheurist.search.state import MoveContext, State

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
CTX = MoveContext(design=None, flow=None)  # type: ignore[arg-type]  # RTL moves read only the text

DERIVED = """module t #(parameter W = 4, parameter W2 = 2 * W, parameter DEPTH = 5) (
    input [W-1:0] a, b, output [W2-1:0] y, output [$clog2(DEPTH)-1:0] z);
  localparam AW = $clog2(DEPTH);
  assign y = a * b;
  assign z = a[AW-1:0];
endmodule
"""
# the port list: a declaration without keyword inherits the one before it; a type parameter; a body one
INHERITED = """module t #(parameter A = 3, int B = A + 1, type T = logic [1:0]) (input [A-1:0] a, output [B-1:0] y);
  parameter C = 1;
  T q;
  assign y = a + C;
endmodule
"""
TWO = """module t #(parameter W = 4) (input [W-1:0] a, output [W:0] y);
  add1 u (.a(a), .y(y));
endmodule
module add1 #(parameter N = 4) (input [N-1:0] a, output [N:0] y);
  assign y = a + 1'b1;
endmodule
"""


def one(text: str, params: dict[str, str] | None = None, top: str = "t") -> Specialised | None:
    cand = Candidate.from_text(text, top)
    return specialise(cand.with_params(params, move="test") if params else cand, 0)


def view(text: str, top: str, params: dict[str, str]) -> tuple[dict[str, str], dict[str, int]]:
    """The elaborated parameter values and signal widths of ``top`` under ``params``."""
    m = read_module([syntax.SyntaxTree.fromText(text)], top, params)
    return {p.name: p.value for p in m.parameters}, m.widths


@pytest.mark.parametrize(("text", "params"), [
    (DERIVED, {}), (DERIVED, {"W": "6"}), (DERIVED, {"DEPTH": "17", "W2": "3"}),
    (INHERITED, {}), (INHERITED, {"A": "5", "C": "2"}), (TWO, {"W": "4"}),
])
def test_the_specialised_file_elaborates_to_the_values_in_effect(text: str, params: dict[str, str]) -> None:
    s = one(text, params)
    assert s is not None
    assert not any(overridable_declarations(m) for m in modules(parse(s.text))), s.text
    assert s.params == ()  # every override was written in: no -chparam of a localparam follows
    assert view(s.text, "t", {}) == view(text, "t", params)


def test_defaults_are_written_as_localparams_and_expressions_kept() -> None:
    s = one(DERIVED)
    assert s is not None
    assert "#(localparam W = 4, localparam W2 = 2 * W, localparam DEPTH = 5)" in s.text
    s = one(INHERITED, {"A": "5"})
    assert s is not None
    assert "#(localparam A = 5, localparam int B = A + 1, localparam type T = logic [1:0])" in s.text
    assert "localparam C = 1;" in s.text


def test_overrides_of_other_modules_or_unknown_names_stay() -> None:
    s = one(TWO, {"W": "6", "X": "1"})
    assert s is not None and s.params == (("X", "1"),)
    assert "localparam N = 4" in s.text  # add1's default: nobody assigns it


@pytest.mark.parametrize("text", [
    TWO.replace("add1 u", "add1 #(.N(W)) u"),  # an instance assigns the module's parameter
    TWO.replace("add1 u", "add1 #(W) u"),
    TWO.replace("endmodule\nmodule add1", "defparam u.N = 4;\nendmodule\nmodule add1"),
    "module t #(parameter W) (input [W-1:0] a, output [W-1:0] y); assign y = a; endmodule",  # no value
    "`define P parameter\nmodule t #(`P W = 4) (input [W-1:0] a, output [W-1:0] y); assign y = a; endmodule",
])
def test_what_cannot_be_frozen_exactly_leaves_the_file_alone(text: str) -> None:
    assert one(text) is None


def test_an_override_the_gates_would_refuse_is_not_written_in() -> None:
    assert one(ADDER, {"W": "1_6"}) is None  # iverilog -P ignores such a value; freezing at it would not


def test_an_instance_in_another_file_pins_the_module() -> None:
    sub = TWO[TWO.index("module add1"):]
    cand = Candidate(files=(("top.v", TWO[:TWO.index("module add1")].replace("add1 u", "add1 #(4) u")),
                            ("sub.v", sub)), top="t")
    assert specialise(cand, 1) is None
    free = Candidate(files=(("top.v", TWO[:TWO.index("module add1")]), ("sub.v", sub)), top="t")
    assert specialise(free, 1) is not None


def test_a_value_without_override_gets_one_from_the_candidate() -> None:
    s = one("module t #(parameter W) (input [W-1:0] a, output [W-1:0] y); assign y = a; endmodule", {"W": "3"})
    assert s is not None and "#(localparam W = 3)" in s.text


def test_a_fixed_widths_move_rewrites_the_specialised_module() -> None:
    parent = Candidate.from_text(ADDER, "t").with_params({"W": "8"}, move="test")
    st = OperatorLibrary().propose(State(parent, Recipe()), CTX, random.Random(0))
    assert st is not None
    child = st.candidate
    assert "localparam W = 8" in child.files[0][1] and "parameter W" not in child.files[0][1]
    assert child.params == () and child.parent == parent.digest
    # the same file without the override is specialised at its default
    st = OperatorLibrary().propose(State(Candidate.from_text(ADDER, "t"), Recipe()), CTX, random.Random(0))
    assert st is not None and "localparam W = 16" in st.candidate.files[0][1]


ADDER = "module t #(parameter W = 16) (input [W-1:0] a, b, output [W:0] y);\n  assign y = a + b;\nendmodule\n"
DESIGN = """name: padd
top: t
spec: spec.md
interface:
  ports:
    - {name: a, dir: input, width: 8}
    - {name: b, dir: input, width: 8}
    - {name: y, dir: output, width: 9}
verification:
  reference: reference.v
  differential: {cycles: 100, seed: 1}
  equivalence: {enabled: true, against: parent}
tunables:
  - {name: W, values: [8, 4]}
"""


@pytest.fixture
def padd(tmp_path: Path) -> tuple[DesignConfig, Candidate]:
    """A design whose top is built with W=8 (an override of the default 16) and a candidate at it."""
    (tmp_path / "spec.md").write_text("y = a + b, 8-bit operands.\n")
    (tmp_path / "reference.v").write_text("module t(input [7:0] a, b, output [8:0] y); assign y = a + b; endmodule\n")
    (tmp_path / "design.yaml").write_text(DESIGN)
    return load_design(tmp_path / "design.yaml"), Candidate.from_text(ADDER, "t").with_params({"W": "8"}, move="t")


# the module a caller assigns parameters to is left as it is: its instances may differ
PINNED = [
    ("module t(input [7:0] a, b, output [8:0] y);\n  add #(.W(8)) u (.a(a), .b(b), .y(y));\nendmodule\n"
     "module add #(parameter W = 4) (input [W-1:0] a, b, output [W:0] y);\n  assign y = a + b;\nendmodule\n"),
    ("module t(input [2:0] s, output [5:0] y);\n  dec #(6) u (.s(s), .y(y));\nendmodule\n"
     "module dec #(parameter W = 8) (input [2:0] s, output [W-1:0] y);\n  assign y = 1 << s;\nendmodule\n"),
]


@pytest.mark.parametrize("text", PINNED)
def test_modules_whose_parameters_an_instance_assigns_are_left_alone(text: str) -> None:
    st = State(Candidate.from_text(text, "t"), Recipe())
    for move in (OperatorLibrary(), DecoderCompare()):
        assert all(move.propose(st, CTX, random.Random(seed)) is None for seed in range(3))


class Renamer(RtlMove):
    """A move that needs fixed parameters but not unsigned code: ``assign y = x`` -> ``assign y = 0 | x``."""

    name = "renamer"
    requires = "fixed-parameters"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        at = text.index("assign y = ")
        return [[Edit(at, at + len("assign y = "), "assign y = 0 | ")]]


class AnyRenamer(Renamer):
    requires = "any"


def test_a_fixed_parameters_move_sees_signed_files_specialised() -> None:
    signed = ("module t #(parameter W = 4) (input signed [W-1:0] a, output signed [W-1:0] y);\n"
              "  assign y = a;\nendmodule\n")
    parent = Candidate.from_text(signed, "t").with_params({"W": "6"}, move="test")
    st = Renamer().propose(State(parent, Recipe()), CTX, random.Random(0))
    assert st is not None and st.candidate.params == ()
    assert "#(localparam W = 6)" in st.candidate.files[0][1] and "assign y = 0 | a;" in st.candidate.files[0][1]
    assert OperatorLibrary().propose(State(parent, Recipe()), CTX, random.Random(0)) is None  # fixed-widths: unsigned
    # a move that takes any file sees it as written, overrides kept
    st = AnyRenamer().propose(State(parent, Recipe()), CTX, random.Random(0))
    assert st is not None and st.candidate.params == (("W", "6"),) and "parameter W = 4" in st.candidate.files[0][1]


def test_a_frozen_tunable_is_no_longer_offered(padd: tuple[DesignConfig, Candidate]) -> None:
    d, parent = padd
    ctx = MoveContext(design=d, flow=None)  # type: ignore[arg-type]  # tunable_param reads the design only
    assert TunableParamMove().propose(State(parent, Recipe()), ctx, random.Random(0)) is not None
    st = OperatorLibrary().propose(State(parent, Recipe()), CTX, random.Random(0))
    assert st is not None and "#(localparam W = 8)" in st.candidate.files[0][1] and st.candidate.params == ()
    assert declared_parameters(st.candidate.files, d.top) == {}
    assert TunableParamMove().propose(st, ctx, random.Random(0)) is None


def test_a_tunable_is_frozen_at_each_of_its_listed_values(padd: tuple[DesignConfig, Candidate]) -> None:
    """Where the chain stands is not where the tunable must stay: the move also offers the rewrite of the
    design at the tunable's other listed values (that change and the rewrite in one step)."""
    d, parent = padd
    ctx = MoveContext(design=d, flow=None)  # type: ignore[arg-type]  # RTL moves read the tunables only
    frozen = set()
    for seed in range(12):
        st = OperatorLibrary().propose(State(parent, Recipe()), ctx, random.Random(seed))
        assert st is not None and st.candidate.params == () and st.candidate.parent == parent.digest
        frozen |= {v for v in ("8", "4") if f"#(localparam W = {v})" in st.candidate.files[0][1]}
    assert frozen == {"8", "4"}
    # a move that takes the file as written does not: it keeps the override
    st = AnyRenamer().propose(State(parent, Recipe()), ctx, random.Random(0))
    assert st is not None and st.candidate.params == (("W", "8"),)


@pytest.mark.tools
def test_the_pipeline_builds_and_proves_the_child_at_the_parents_values(
        padd: tuple[DesignConfig, Candidate], tmp_path: Path) -> None:
    """The child (W frozen at the parent's override 8, no -chparam left) passes every gate and is proven
    equivalent to its parent, which the pipeline builds with W=8 (-chparam, -P, defparam)."""
    d, parent = padd
    child = OperatorLibrary().propose(State(parent, Recipe()), CTX, random.Random(0))
    assert child is not None
    ev = evaluate(EvalTask(d, tmp_path / "run", child, State(parent, Recipe()), d.ppa.power)).evaluation
    assert ev.valid, ev.message
    assert ev.proof is not None and ev.proof.verdict == "proven", ev.proof


SCALE = ("module t #(parameter K = 3) (input [3:0] a, output [4:0] y);\n"
         "  wire [3:0] k = K;\n  assign y = a + k;\nendmodule\n")


@pytest.mark.tools
def test_the_child_is_the_parent_at_its_values_and_not_at_others(tmp_path: Path) -> None:
    """A child specialised at the override K=5 equals the parent built with K=5, and differs from the
    parent at its default K=3: the proof sees which values were frozen."""
    parent = Candidate.from_text(SCALE, "t").with_params({"K": "5"}, move="test")
    st = OperatorLibrary().propose(State(parent, Recipe()), CTX, random.Random(0))
    assert st is not None and "localparam K = 5" in st.candidate.files[0][1]
    child = st.candidate.files[0][1]
    iface = module_interface(SCALE, "t")
    at_five = bake_parameters(parent).files[0][1]
    assert prove_rewrite(ProofTask(at_five, child, "t", iface), tmp_path / "k5").kind == "proven"
    assert prove_rewrite(ProofTask(SCALE, child, "t", iface), tmp_path / "k3").kind == "refuted"


SWAP = """module t #(parameter ARCH = 0) (input [7:0] a, b, output [8:0] y);
  wire [7:0] p = ARCH ? b : a;
  wire [7:0] q = ARCH ? a : b;
  assign y = p + q;
endmodule
"""


@pytest.mark.tools
def test_a_child_frozen_at_another_listed_value_is_proven_against_the_parent(tmp_path: Path) -> None:
    """ARCH only swaps the operands: the rewrite of the design at ARCH=1 equals the parent at ARCH=0."""
    tun = DesignConfig.model_construct(tunables=[Tunable(name="ARCH", values=[0, 1])])
    ctx = MoveContext(design=tun, flow=None)  # type: ignore[arg-type]  # RTL moves read the tunables only
    parent = Candidate.from_text(SWAP, "t")
    children = {st.candidate.files[0][1] for seed in range(12)
                if (st := OperatorLibrary().propose(State(parent, Recipe()), ctx, random.Random(seed))) is not None}
    other = [c for c in children if "#(localparam ARCH = 1)" in c]
    assert other, children
    assert prove_rewrite(ProofTask(SWAP, other[0], "t", module_interface(SWAP, "t")), tmp_path).kind == "proven"
