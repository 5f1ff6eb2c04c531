"""Recipe and tunable-parameter moves, and the default move set."""

from __future__ import annotations

import random
from pathlib import Path

from hyperheurist.candidate import Candidate
from hyperheurist.config import load_design
from hyperheurist.ppa.metrics import PPAMetrics
from hyperheurist.ppa.synth import SynthFacts
from hyperheurist.recipe import load_flow
from hyperheurist.search.moves import default_moves
from hyperheurist.search.moves.params import TunableParamMove, declared_parameters
from hyperheurist.search.moves.recipe import recipe_moves
from hyperheurist.search.state import MoveContext, State

DATA = Path(__file__).parent / "data" / "config"
PARAM_RTL = """module add8 #(parameter W = 8, parameter STAGES = 1) (input [7:0] a, b, output [7:0] sum);
  localparam HIDDEN = 3;
  assign sum = a + b;
endmodule
"""


def ctx(flow: str = "default", **overrides) -> MoveContext:
    return MoveContext(design=load_design(DATA / "good.yaml", overrides), flow=load_flow(flow))


def test_recipe_moves_change_one_knob_within_the_space():
    c = ctx()
    start = State(Candidate.from_text(PARAM_RTL, "add8"), c.flow.recipe)
    rng = random.Random(0)
    for move in recipe_moves():
        for _ in range(10):
            new = move.propose(start, c, rng)
            assert new is not None and new.candidate is start.candidate
            changed = {k for k, v in new.recipe.model_dump().items() if v != start.recipe.model_dump()[k]}
            assert changed == {move.knob}
            assert getattr(new.recipe, move.knob) in c.flow.space[move.knob]


def test_the_loosest_delay_target_is_asked_first():
    """From no target, a target ABC cannot meet changes nothing, nor does any tighter one: the loosest is
    the one question that settles the rest; tighter ones are proposed from a state that has a target."""
    c = ctx()
    move = {m.name: m for m in recipe_moves()}["recipe_delay_target"]
    start = State(Candidate.from_text(PARAM_RTL, "add8"), c.flow.recipe)
    loosest = max(v for v in c.flow.space["abc_delay_target_ps"] if v is not None)
    rng = random.Random(0)
    assert {move.propose(start, c, rng).recipe.abc_delay_target_ps for _ in range(10)} == {loosest}
    held = State(start.candidate, start.recipe.with_(abc_delay_target_ps=loosest))
    others = {move.propose(held, c, rng).recipe.abc_delay_target_ps for _ in range(40)}
    assert others == set(c.flow.space["abc_delay_target_ps"]) - {loosest}


def test_recipe_move_not_applicable_outside_the_space():
    c = ctx("area")  # the area preset does not vary the delay target
    start = State(Candidate.from_text(PARAM_RTL, "add8"), c.flow.recipe)
    by_name = {m.name: m for m in recipe_moves()}
    assert by_name["recipe_delay_target"].propose(start, c, random.Random(0)) is None
    no_fsm = State(start.candidate, start.recipe.with_(fsm=False))
    assert by_name["recipe_fsm_encoding"].propose(no_fsm, c, random.Random(0)) is None


def _with_facts(c: MoveContext, facts: SynthFacts | None) -> MoveContext:
    details = {} if facts is None else {"synth_facts": facts.to_dict()}
    m = PPAMetrics(area_um2=1.0, cells=1, cell_histogram={}, delay_ns=1.0, slack_ns=0.0, fmax_mhz=1000.0,
                   met_timing=True, critical_path={}, power_mw=1.0, dynamic_mw=1.0, leakage_mw=0.0,
                   power_fidelity="vectorless", liberty="x.lib", timings={}, details=details)
    return MoveContext(design=c.design, flow=c.flow, metrics=m)


def test_knobs_the_synthesis_log_shows_inert_are_not_proposed():
    """No FSM (or none following the knob): no encoding is proposed; ``auto``'s own choice is not proposed
    from ``auto``, the other one is; ``share`` with fewer than two candidate cells is not turned off."""
    c = ctx()
    start = State(Candidate.from_text(PARAM_RTL, "add8"), c.flow.recipe)
    by_name = {m.name: m for m in recipe_moves()}
    enc, share = by_name["recipe_fsm_encoding"], by_name["recipe_share"]
    rng = random.Random(0)
    none = _with_facts(c, SynthFacts(0, (), 0))
    assert enc.propose(start, none, rng) is None and share.propose(start, none, rng) is None
    user_encoded = _with_facts(c, SynthFacts(1, (), 1))
    assert enc.propose(start, user_encoded, rng) is None and share.propose(start, user_encoded, rng) is None
    fsm = _with_facts(c, SynthFacts(1, ("one-hot",), 2))
    assert {enc.propose(start, fsm, rng).recipe.fsm_encoding for _ in range(20)} == {"binary"}
    assert share.propose(start, fsm, rng).recipe.share is False
    held = State(start.candidate, start.recipe.with_(fsm_encoding="one-hot"))  # auto's choice unknown from here
    assert {enc.propose(held, fsm, rng).recipe.fsm_encoding for _ in range(20)} == {"auto", "binary"}
    for unknown in (_with_facts(c, None), _with_facts(c, SynthFacts(None, (), None))):  # old journal, pass off
        assert enc.propose(start, unknown, rng) is not None and share.propose(start, unknown, rng) is not None


def test_a_recipe_move_lists_every_value_it_may_propose():
    """The greedy finish (``search/polish.py``) asks every value at once: exactly what ``propose`` draws from."""
    c = ctx()
    start = State(Candidate.from_text(PARAM_RTL, "add8"), c.flow.recipe)
    held = State(start.candidate, start.recipe.with_(abc_delay_target_ps=1000))
    fsm = _with_facts(c, SynthFacts(1, ("one-hot",), 2))
    rng = random.Random(0)
    for move in recipe_moves():
        for state in (start, held):
            every = {getattr(n.recipe, move.knob) for n in move.neighbours(state, fsm, rng)}
            drawn = {getattr(p.recipe, move.knob) for _ in range(60) if (p := move.propose(state, fsm, rng))}
            assert drawn <= every
            if move.knob != "abc_delay_target_ps" or state is held:  # from no target only the loosest is drawn
                assert drawn == every
            assert getattr(state.recipe, move.knob) not in every
    assert {n.recipe.fsm_encoding for n in by_knob("fsm_encoding").neighbours(start, fsm, rng)} == {"binary"}


def by_knob(knob: str):
    return next(m for m in recipe_moves() if m.knob == knob)


def test_tunable_param_only_for_declared_parameters():
    c = ctx(tunables=[{"name": "W", "values": [8, 16]}, {"name": "HIDDEN", "values": [1, 2]},
                      {"name": "DEPTH", "values": [1, 2]}])
    cand = Candidate.from_text(PARAM_RTL, "add8")
    assert declared_parameters(cand.files, "add8") == {"W": "8", "STAGES": "1"}
    new = TunableParamMove().propose(State(cand, c.flow.recipe), c, random.Random(0))
    assert new is not None and dict(new.candidate.params) == {"W": "16"}
    assert new.candidate.parent == cand.digest and new.candidate.move == "tunable_param"
    # the only other value is the current one: nothing left to try
    again = TunableParamMove().propose(new, ctx(tunables=[{"name": "W", "values": [16]}]), random.Random(0))
    assert again is None
    # back to the declared default: the design without the override, the very candidate it started from
    back = TunableParamMove().propose(new, ctx(tunables=[{"name": "W", "values": [8, 16]}]), random.Random(0))
    assert back is not None and back.candidate.params == () and back.candidate.digest == cand.digest


def test_default_moves_unique_names_and_kinds():
    c = ctx(tunables=[{"name": "W", "values": [8, 16]}])
    moves = default_moves(c.design, c.flow, llm_available=False)
    names = [m.name for m in moves]
    assert len(names) == len(set(names))
    assert {"tunable_param", "recipe_abc_script", "recipe_delay_target", "recipe_share"} <= set(names)
    assert all(m.kind in {"rtl", "recipe", "param", "llm"} for m in moves)
    plain = default_moves(ctx().design, load_flow("area"), llm_available=False)
    assert "tunable_param" not in {m.name for m in plain} and "recipe_delay_target" not in {m.name for m in plain}
