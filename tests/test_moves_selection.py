"""The selector credits only improvements: a move whose valid proposals never lower the cost
(a recipe knob that leaves the netlist unchanged) loses its share to one that pays off."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from hyperheurist.candidate import Candidate
from hyperheurist.config import Anneal
from hyperheurist.ppa.metrics import PPAMetrics
from hyperheurist.recipe import Recipe
from hyperheurist.search.annealer import Annealer
from hyperheurist.search.netlists import NetlistMemory
from hyperheurist.search.schedule import Temperature
from hyperheurist.search.selection import BEST_REWARD, AdaptiveSelector, reward
from hyperheurist.search.state import Evaluation, MoveContext, State


def test_reward_is_zero_without_improvement() -> None:
    assert reward(True, 1.0, 1.0, False) == 0.0          # same cost (e.g. the same netlist)
    assert reward(True, 1.0, 1.2, False) == 0.0          # worse
    assert reward(False, 1.0, 0.5, True) == 0.0          # invalid
    assert reward(True, 1.0, None, False) == 0.0
    assert abs(reward(True, 1.0, 0.9, False) - 0.1) < 1e-12
    assert abs(reward(True, 1.0, 0.9, True) - (0.1 + BEST_REWARD)) < 1e-12
    assert reward(True, 1.0, -5.0, False) == 1.0          # capped


def test_non_improving_move_loses_its_share() -> None:
    sel = AdaptiveSelector(["noop_knob", "improver"])
    rng = random.Random(1)
    cost = 1.0
    picks = {"noop_knob": 0, "improver": 0}
    for _ in range(60):
        name = sel.choose(rng)
        assert name is not None
        picks[name] += 1
        if name == "improver":
            new = cost * 0.98
            sel.update(name, reward(True, cost, new, True))
            cost = new
        else:
            sel.update(name, reward(True, cost, cost, False))
    p = sel.probabilities()
    assert p["improver"] > 0.85 and p["noop_knob"] >= sel.p_min  # floor keeps it explorable
    assert picks["improver"] > picks["noop_knob"]


def test_moves_whose_credit_has_decayed_share_alike() -> None:
    """Once no move improved lately, the shares are not set by which one happened to be updated last."""
    sel = AdaptiveSelector(["a", "b"])
    for _ in range(60):
        sel.update("a", 0.0)
    for _ in range(70):
        sel.update("b", 0.0)
    p = sel.probabilities()
    assert abs(p["a"] - p["b"]) < 0.01
    sel.update("b", reward(True, 1.0, 0.9, True))  # one improvement still tells
    assert sel.probabilities()["b"] > 0.8


def test_a_move_whose_proposals_always_fail_falls_to_its_floor() -> None:
    """Zero credit alone cannot tell a sound, non-improving move from one whose proposals all fail a gate;
    the validity factor can: the failing move drops towards its floor, the sound ones share the rest."""
    sel = AdaptiveSelector(["sound_a", "sound_b", "broken"])
    for _ in range(40):  # every credit decays; the broken move's proposals fail every time
        sel.update("sound_a", 0.0, valid=True)
        sel.update("sound_b", 0.0, valid=True)
        sel.update("broken", 0.0, valid=False)
    p = sel.probabilities()
    assert p["broken"] < sel.p_min + 0.01  # at its floor (plus a hair), still explorable
    assert abs(p["sound_a"] - p["sound_b"]) < 1e-12 and p["sound_a"] > 0.45
    sel.update("broken", reward(True, 1.0, 0.8, True), valid=True)  # one large improvement still tells
    assert sel.probabilities()["broken"] > sel.probabilities()["sound_a"]


def test_validity_leaves_runs_without_invalid_proposals_alone() -> None:
    """Without an invalid proposal, quality is the plain moving average from the optimistic start and the
    validity factor is 1; skipped proposals (valid=None) do not count as evaluated."""
    sel = AdaptiveSelector(["a", "b"])
    plain = sel.initial_quality
    for r, valid in [(0.3, True), (0.0, None), (0.0, True), (0.6, True)]:
        sel.update("a", r, valid=valid)
        plain += sel.alpha * (r - plain)
    assert abs(sel.quality("a") - plain) < 1e-12 and sel.validity("a") == 1.0
    assert sel.evaluated["a"] == 3


def test_an_invalid_proposal_spends_the_optimism_not_the_credit() -> None:
    sel = AdaptiveSelector(["untried", "failed", "earner"])
    sel.update("failed", 0.0, valid=False)
    assert sel.quality("failed") == 0.0 and sel.validity("failed") == 0.5
    assert sel.quality("untried") == sel.initial_quality  # still optimistic: it gets tried early
    sel.update("earner", 0.4, valid=True)
    earned = sel.earned["earner"]
    sel.update("earner", 0.0, valid=False)
    assert sel.optimism["earner"] == 0.0
    assert abs(sel.earned["earner"] - earned * (1 - sel.alpha)) < 1e-12  # credit decays as for any zero


# ---- knobs that do not change the netlist are learnt per RTL and no longer proposed ----------------



def _st(v: int, recipe: Recipe) -> State:
    return State(Candidate.from_text(f"v={v}\n", top="t"), recipe)


def _v(s: State) -> int:
    return int(s.candidate.files[0][1].split("=")[1])


@dataclass(frozen=True)
class _Inc:
    name: str = "inc"
    kind: str = "rtl"

    def propose(self, state, ctx, rng):
        return _st(_v(state) + rng.choice((-1, 1)), state.recipe)


@dataclass(frozen=True)
class _Share:
    name: str = "share_knob"
    kind: str = "recipe"

    def propose(self, state, ctx, rng):
        return State(state.candidate, state.recipe.with_(share=not state.recipe.share))


def _metrics(netlist: str) -> PPAMetrics:
    return PPAMetrics(area_um2=1.0, cells=1, cell_histogram={}, delay_ns=1.0, slack_ns=0.0, fmax_mhz=1000.0,
                      met_timing=True, critical_path={}, power_mw=1.0, dynamic_mw=1.0, leakage_mw=0.0,
                      power_fidelity="vectorless", liberty="fake", timings={}, details={"netlist_digest": netlist})


def _evaluate(batch):
    out = []
    for s, _ in batch:  # the netlist depends on the RTL only: the share knob is inert for every design
        v = _v(s)
        out.append(Evaluation(key=s.key, valid=True, cost=1.0 + abs(v - 7) * 0.01,
                              metrics=_metrics(f"n{v}")))
    return out


def test_inert_knob_is_not_proposed_again_for_the_same_rtl() -> None:
    start = _st(0, Recipe())
    ann = Annealer([(start, _evaluate([(start, None)])[0])], [_Inc(), _Share()],
                   lambda s, e: MoveContext(design=None, flow=None),  # type: ignore[arg-type]
                   _evaluate, Anneal(seed=3, chains=2, iterations=40, polish=0), lambda rec: None)
    records = []  # polish=0: the greedy finish also asks what annealing only predicts inert (polish.py)
    ann.state.record = lambda rec: records.append(rec.to_json())
    ann.run()
    share_evals = Counter(r["parent_digest"] for r in {r["proposal"]: r for r in records
                          if r["move"] == "share_knob" and r["proposal"]}.values())
    assert share_evals, "the knob was tried"
    # both of its values shown to give one netlist, and never changing any: not proposed again anywhere
    assert sum(share_evals.values()) <= 2  # 2: the other chain may propose it in the same iteration
    assert ann.counters.inert_skips > 0
    # and the chain never moves to a state whose netlist it has already seen for that RTL
    share_steps = [r for r in records if r["move"] == "share_knob" and r["proposal"]]
    assert share_steps and all(r["verdict"] == "rejected:known-netlist" and not r["accepted"] for r in share_steps)


def _scored(v: int, recipe: Recipe, netlist: str) -> tuple[State, Evaluation]:
    s = _st(v, recipe)
    return s, Evaluation(key=s.key, valid=True, cost=1.0, metrics=_metrics(netlist))


def test_equal_values_are_learnt_per_rtl_both_ways_and_live_knobs_stay() -> None:
    mem = NetlistMemory()
    parent = _scored(0, Recipe(), "n0")
    mem.add(*parent)
    same = _scored(0, Recipe().with_(share=False), "n0")
    assert mem.learn(parent, same, recipe=True)  # a recipe change back to a netlist seen for this RTL
    assert mem.skip(parent[0], same[0])  # not proposed again for this RTL
    assert mem.skip(same[0], parent[0])  # nor the way back: the two values give one netlist
    # a never-live knob whose values were all shown equal is predicted to change nothing on an RTL an RTL
    # move made from this one (its family), but a start of its own gets its own trial
    child, stranger = _st(2, Recipe()), _st(8, Recipe())
    mem.adopt(child, parent[0])
    assert mem.skip(child, _st(2, Recipe().with_(share=False)))
    assert not mem.skip(stranger, _st(8, Recipe().with_(share=False)))
    # a knob that changed a netlist once is skipped only where an equality was seen
    mem.learn(parent, _scored(0, Recipe().with_(opt_full=True), "n2"), recipe=True)
    for v in (3, 4, 5):
        mem.learn(_scored(v, Recipe(), f"m{v}"), _scored(v, Recipe().with_(opt_full=True), f"m{v}"), recipe=True)
    assert not mem.skip(_st(6, Recipe()), _st(6, Recipe().with_(opt_full=True)))
    assert mem.skip(_st(3, Recipe()), _st(3, Recipe().with_(opt_full=True)))
    # an RTL move is never learnt as inert, whatever netlist it makes
    assert not mem.learn(parent, _scored(7, Recipe(), "n0"), recipe=False)


def test_every_value_of_a_knob_gets_its_own_trial() -> None:
    """One-hot giving the netlist back says nothing about binary (traffic_fsm's best needs binary)."""
    mem = NetlistMemory()
    auto = _scored(0, Recipe(), "n0")
    mem.learn(auto, _scored(0, Recipe().with_(fsm_encoding="one-hot"), "n0"), recipe=True)
    other = _st(1, Recipe())
    mem.adopt(other, auto[0])  # made from it by an RTL move
    assert mem.skip(other, _st(1, Recipe().with_(fsm_encoding="one-hot")))  # shown equal on another RTL
    assert not mem.skip(other, _st(1, Recipe().with_(fsm_encoding="binary")))  # never tried: tried
    assert not mem.skip(auto[0], _st(0, Recipe().with_(fsm_encoding="binary")))
    mem.learn(auto, _scored(0, Recipe().with_(fsm_encoding="binary"), "n1"), recipe=True)  # binary is live
    assert not mem.skip(other, _st(1, Recipe().with_(fsm_encoding="one-hot")))  # now learnt per RTL only
    assert mem.skip(auto[0], _st(0, Recipe().with_(fsm_encoding="one-hot")))


def test_equalities_hold_under_the_other_knobs_they_were_seen_with_and_unmet_targets_cover_tighter_ones() -> None:
    """``-D`` is ignored by ``map -a`` but acts in ``map``; a target equal to none was not met, and a
    tighter one cannot be met either."""
    mem = NetlistMemory()
    area = _scored(0, Recipe().with_(abc_script="area"), "a0")
    mem.learn(area, _scored(0, Recipe().with_(abc_script="area", abc_delay_target_ps=4000), "a0"), recipe=True)
    mem.learn(area, _scored(0, Recipe().with_(abc_script="area", opt_full=True), "a1"), recipe=True)
    delay = _scored(0, Recipe().with_(abc_script="delay"), "d0")
    mem.learn(delay, _scored(0, Recipe().with_(abc_script="delay", abc_delay_target_ps=4000), "d1"), recipe=True)
    assert mem.skip(area[0], _st(0, Recipe().with_(abc_script="area", abc_delay_target_ps=1000)))  # tighter
    assert not mem.skip(area[0], _st(0, Recipe().with_(abc_script="area", abc_delay_target_ps=8000)))  # looser
    assert not mem.skip(delay[0], _st(0, Recipe().with_(abc_script="delay", abc_delay_target_ps=4000)))
    # an equality is not carried to other knob settings (mac16: opt_full changes the netlist under the area
    # script, not under default): opt_full acted under area (a1), was equal under delay, is open under default
    mem.learn(delay, _scored(0, Recipe().with_(abc_script="delay", opt_full=True), "d0"), recipe=True)
    assert mem.skip(delay[0], _st(0, Recipe().with_(abc_script="delay", opt_full=True)))
    assert not mem.skip(_st(0, Recipe()), _st(0, Recipe().with_(opt_full=True)))


def test_one_question_about_a_never_live_knob_per_batch() -> None:
    """Two chains trying share=False on two RTL of one family in one batch would answer one question twice."""
    mem = NetlistMemory()
    a, b = _st(0, Recipe()), _st(1, Recipe())
    mem.adopt(b, a)
    mem.ask(a, _st(0, Recipe().with_(share=False)))
    assert mem.skip(b, _st(1, Recipe().with_(share=False)))
    assert not mem.skip(_st(9, Recipe()), _st(9, Recipe().with_(share=False)))  # another family's question
    assert not mem.skip(b, _st(1, Recipe().with_(opt_full=True)))  # another question
    mem.asking.clear()  # the next batch: the answer is in, or the question is open again
    assert not mem.skip(b, _st(1, Recipe().with_(share=False)))
    mem.learn(_scored(0, Recipe(), "n0"), _scored(0, Recipe().with_(share=True, opt_full=True), "n1"), recipe=True)
    mem.ask(a, _st(0, Recipe().with_(opt_full=True)))  # a live knob is asked per RTL, never per batch
    assert not mem.skip(b, _st(1, Recipe().with_(opt_full=True)))


def test_temperature_cools_then_reheats_to_a_halving_level() -> None:
    cfg = Anneal(t0=1.0, cooling=0.5, t_min=0.01, reheat_after=3)
    t = Temperature(value=1.0)
    assert [t.step(False, 1.0, cfg) for _ in range(2)] == [False, False] and t.value == 0.25
    assert t.step(False, 1.0, cfg) and t.value == 1.0  # third iteration without a new best: reheat to t0
    t.value = 0.01
    assert not t.step(True, 1.0, cfg) and t.value == 0.01  # an improvement resets the count; floor t_min
    assert [t.step(False, 1.0, cfg) for _ in range(3)] == [False, False, True] and t.value == 0.5  # t0 / 2
    assert not Temperature().step(False, None, cfg)  # no T0 yet: greedy, nothing to cool
