"""The selector credits only improvements: a move whose valid proposals never lower the cost
(a recipe knob that leaves the netlist unchanged) loses its share to one that pays off."""

from __future__ import annotations

import random

from hyperheurist.search.selection import BEST_REWARD, AdaptiveSelector, reward


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
