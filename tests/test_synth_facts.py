"""What the synthesis stage reads from Yosys' log (real Yosys): FSMs found and the encoding ``auto`` chose,
``share``'s candidate cells; carried in an evaluation's metrics (a PPA cache hit too) to the search."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.estimate import ppa_context
from hyperheurist.evaluate import EvalTask, evaluate
from hyperheurist.pipelines import PPA_PIPELINE
from hyperheurist.ppa.metrics import PPAMetrics
from hyperheurist.ppa.synth import Synthesized, SynthFacts, synth_facts
from hyperheurist.recipe import Recipe
from hyperheurist.search.knowledge import cannot_act, facts_of
from hyperheurist.search.netlists import changed_knob
from hyperheurist.search.state import State
from hyperheurist.stages.model import StageId
from hyperheurist.stages.runner import StageRunner

BENCH = Path(__file__).parent.parent / "benchmarks"
SHARED = """module mac16(input clk, input rst_n, input en, input clr, input signed [15:0] a, input signed [15:0] b,
                  output reg signed [39:0] acc);
  always @(posedge clk)
    if (!rst_n) acc <= 40'sd0;
    else if (clr) acc <= a * a;
    else if (en) acc <= a * b;
endmodule
"""


def _facts(tmp_path: Path, bench: str, seed: str, recipe: Recipe, text: str | None = None) -> SynthFacts:
    d = load_design(BENCH / bench / "design.yaml")
    src = BENCH / bench / "seeds" / f"{seed}.v"
    if text is not None:
        src = tmp_path / f"{seed}.v"
        src.write_text(text)
    ctx = ppa_context(Candidate.from_paths([src], d.top), d, recipe, "vectorless")
    StageRunner(tmp_path / "run", ctx).run([s for s in PPA_PIPELINE if s.id not in (StageId.STA, StageId.POWER)])
    res = ctx.results[StageId.SYNTHESIS]
    assert res.passed and isinstance(res.value, Synthesized)
    assert res.details["facts"] == res.value.facts.to_dict()
    return res.value.facts


@pytest.mark.tools
def test_an_fsm_is_found_and_auto_chooses_one_hot(tmp_path: Path) -> None:
    facts = _facts(tmp_path / "auto", "traffic_fsm", "ok_1_naive", Recipe())
    assert facts == SynthFacts(1, ("one-hot",), 0, None, 0, 1)  # no $mul; one $alu (the timer)
    binary = _facts(tmp_path / "bin", "traffic_fsm", "ok_1_naive", Recipe(fsm_encoding="binary"))
    assert binary == SynthFacts(1, ("binary",), 0, None, 0, 1)  # the knob's value is what fsm_recode used


@pytest.mark.tools
def test_no_fsm_and_no_share_candidates(tmp_path: Path) -> None:
    assert _facts(tmp_path / "on", "mac16", "ok_1_naive", Recipe()) == SynthFacts(0, (), 0, None, 1, 5)
    off = _facts(tmp_path / "off", "mac16", "ok_1_naive", Recipe(fsm=False, share=False))
    assert off == SynthFacts(None, (), None, None, 1, 5)  # the passes did not run: nothing is known


@pytest.mark.tools
def test_share_candidates_are_counted(tmp_path: Path) -> None:
    assert _facts(tmp_path, "mac16", "shared", Recipe(), SHARED).share_candidates == 2


def test_absent_messages_mean_none_found() -> None:
    log = "13. Executing SHARE pass (SAT-based resource sharing).\n\n8.1. Executing FSM_DETECT pass\n"
    assert synth_facts(log, Recipe()) == SynthFacts(0, (), 0)  # no ALUMACC pass in the log: nothing known
    assert synth_facts(log + "14. Executing ALUMACC pass (create $alu and $macc cells).\n",
                       Recipe()) == SynthFacts(0, (), 0, None, 0, 0)
    two = ("Found FSM state register top.a.\nFound FSM state register top.b.\n"
           "  mapping auto encoding to `one-hot` for this FSM.\n"
           "Found 3 cells in module top that may be considered for resource sharing.\n"
           "Found 2 cells in module sub that may be considered for resource sharing.\n")
    assert synth_facts(two, Recipe()) == SynthFacts(2, ("one-hot",), 5)


@pytest.mark.tools
def test_an_evaluation_and_a_cache_hit_carry_the_facts(tmp_path: Path) -> None:
    d = load_design(BENCH / "traffic_fsm" / "design.yaml")
    state = State(Candidate.from_paths([BENCH / "traffic_fsm" / "seeds" / "ok_1_naive.v"], d.top), Recipe())
    parent = State(state.candidate, Recipe(abc_script="area"))  # a recipe change: only the PPA stages run
    first = evaluate(EvalTask(d, tmp_path / "a", state, parent, d.ppa.power)).evaluation
    again = evaluate(EvalTask(d, tmp_path / "b", state, parent, d.ppa.power)).evaluation
    assert first.valid and again.cached
    assert first.metrics is not None and again.metrics is not None
    assert facts_of(first.metrics) == facts_of(again.metrics) == SynthFacts(1, ("one-hot",), 0, None, 0, 1)
    # what the search concludes: auto's own choice and share=False give this netlist back; binary may not
    assert cannot_act(first.metrics, state.recipe, "fsm_encoding", "one-hot")
    assert not cannot_act(first.metrics, state.recipe, "fsm_encoding", "binary")
    assert cannot_act(first.metrics, state.recipe, "share", False)
    assert not cannot_act(first.metrics, state.recipe, "opt_full", True)


def _metrics(facts: SynthFacts) -> PPAMetrics:
    return PPAMetrics(1.0, 1, {}, 1.0, 0.0, 1.0, True, {}, 1.0, 1.0, 0.0, "vectorless", "osu018", {},
                      details={"synth_facts": facts.to_dict()})


@pytest.mark.tools
def test_the_cells_offered_to_our_techmaps_are_counted(tmp_path: Path) -> None:
    """No $alu in the nibble-table CRC: the adder maps take nothing; adder32's naive `+` offers its $alu."""
    nibble = _facts(tmp_path / "d", "crc32", "ok_2_nibble", Recipe())
    assert nibble.techmap_cells is None  # no pass, no fact
    assert _facts(tmp_path / "c", "crc32", "ok_2_nibble", Recipe(adder="ripple")).techmap_cells == 0
    assert (nibble.multipliers, nibble.alu_cells) == (0, 0)  # alumacc's own counts, under any recipe
    assert (_facts(tmp_path / "a", "adder32", "ok_1_naive", Recipe(adder="ripple")).techmap_cells or 0) >= 1
    booth = _facts(tmp_path / "m", "mac16", "ok_2_operand_mux", Recipe(multiplier="booth"))
    assert (booth.techmap_cells, booth.multipliers) == (1, 0)  # Booth took the one $mul: alumacc met none


def test_a_techmap_knob_that_took_nothing_cannot_act() -> None:
    none = _metrics(SynthFacts(0, (), 0, 0))
    some = _metrics(SynthFacts(0, (), 0, 2))
    ripple, wallace, booth = Recipe(adder="ripple"), Recipe(multiplier="wallace"), Recipe(multiplier="booth")
    assert cannot_act(none, ripple, "adder", "kogge_stone") and cannot_act(none, ripple, "adder", "yosys")
    assert not cannot_act(some, ripple, "adder", "kogge_stone")
    assert cannot_act(none, wallace, "multiplier", "booth")  # wallace's selection holds booth's
    assert cannot_act(none, booth, "multiplier", "yosys")
    assert not cannot_act(none, booth, "multiplier", "wallace")  # wallace also takes unsigned and narrower
    no_alu, no_mul = _metrics(SynthFacts(0, (), 0, None, 1, 0)), _metrics(SynthFacts(0, (), 0, None, 0, 3))
    assert cannot_act(no_alu, Recipe(), "adder", "ripple") and not cannot_act(no_mul, Recipe(), "adder", "ripple")
    assert cannot_act(no_mul, Recipe(), "multiplier", "booth")
    assert not cannot_act(no_alu, Recipe(), "multiplier", "booth")
    assert not cannot_act(no_mul, booth, "multiplier", "wallace")  # under booth: the $mul it left, none
    # both knobs set: the count is their sum, which one took nothing is not known
    assert not cannot_act(none, ripple.with_(multiplier="booth"), "adder", "yosys")


def test_a_move_back_to_a_default_knob_is_one_changed_knob() -> None:
    cand = Candidate.from_text("module m; endmodule\n", "m")
    assert changed_knob(State(cand, Recipe(multiplier="booth")), State(cand, Recipe())) == ("multiplier", "booth",
                                                                                              "yosys")
