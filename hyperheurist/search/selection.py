"""Hyper-heuristic move selection: adaptive operator selection by probability matching.

Each move keeps a recency-weighted quality ``q`` (exponential moving average of its rewards). The
selection probability is ``p_min + (1 - K * p_min) * w / sum(w)`` with ``w = (q + prior) * validity`` (below):
moves that recently produced valid improvements are picked more often, yet every move keeps at least ``p_min``
so the controller can notice when a move starts to pay off later in the run. Rewards are computed by the annealer
and credit only improvement: a proposal earns its relative cost gain over its parent, plus a bonus
when it improves its chain's best. Valid proposals that do not improve (a recipe knob that yields the
same netlist, a re-encoding that costs more), "not applicable" and invalid ones earn zero; crediting
mere validity let moves that never improved keep a large share of the evaluations.

A move's quality is its earned credit plus an optimism bonus: both start as one moving average would
(``initial_quality`` of optimism, no credit) and decay alike, so without invalid proposals the sum is the
plain moving average. An invalid proposal spends the move's optimism at once: optimism is there to get a
move tried, and a move whose proposal failed a gate has been tried. Validity also scales the matched share
(``q + prior`` times ``(valid + 1) / (evaluated + 1)``), so a move whose proposals keep failing falls to its
floor instead of sharing alike with moves whose proposals are sound but no better. On traffic_fsm the
optimism kept three moves whose proposals always failed simulation picked on 14 of 80 steps. A run without
invalid proposals selects as before.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

VALID_REWARD = 0.0  # a valid proposal that does not improve earns nothing (credit only improvements)
BEST_REWARD = 0.5  # extra reward for a proposal that improves its chain's best
# Added to every quality before matching: qualities that decayed below a 1% gain per proposal are
# equally "nothing lately". Without it, once every move's credit has decayed, the shares were ratios of
# numbers near zero (0.7**60 against 0.7**70), set by which move happened to be updated last.
QUALITY_PRIOR = 0.01


def reward(valid: bool, parent_cost: float, cost: float | None, improved_best: bool) -> float:
    """The credit one evaluated proposal earns its move: its relative improvement, zero without one."""
    if not valid or cost is None:
        return 0.0
    gain = (parent_cost - cost) / max(abs(parent_cost), 1e-12)
    if not gain > 0:
        return 0.0
    return VALID_REWARD + min(1.0, gain) + (BEST_REWARD if improved_best else 0.0)


@dataclass
class AdaptiveSelector:
    """Probability-matching selector over move names (deterministic given the RNG it is handed)."""

    names: Sequence[str]
    alpha: float = 0.3  # learning rate of the moving average: how fast credit follows recent results
    p_min: float | None = None  # floor on each move's probability; default 0.2 / K
    initial_quality: float = 1.0  # optimistic start, so every move is tried early
    earned: dict[str, float] = field(default_factory=dict)  # moving average of the rewards, from zero
    optimism: dict[str, float] = field(default_factory=dict)  # what is left of initial_quality
    evaluated: dict[str, int] = field(default_factory=dict)  # proposals judged valid or invalid
    valid: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.names:
            raise ValueError("the selector needs at least one move")
        if len(set(self.names)) != len(self.names):
            raise ValueError("move names must be unique")
        if self.p_min is None:
            self.p_min = 0.2 / len(self.names)
        for n in self.names:
            self.earned.setdefault(n, 0.0)
            self.optimism.setdefault(n, self.initial_quality)
            self.evaluated.setdefault(n, 0)
            self.valid.setdefault(n, 0)

    def quality(self, name: str) -> float:
        return self.earned[name] + self.optimism[name]

    def validity(self, name: str) -> float:
        """The share factor of a move's validity: 1 with no invalid proposal, 1/(n+1) after n invalid ones."""
        return (self.valid[name] + 1) / (self.evaluated[name] + 1)

    def probabilities(self, exclude: Iterable[str] = ()) -> dict[str, float]:
        """Selection probabilities over the moves not in ``exclude`` (they sum to 1)."""
        skip = set(exclude)
        names = [n for n in self.names if n not in skip]
        if not names:
            return {}
        k = len(names)
        p_min = min(float(self.p_min or 0.0), 1.0 / k)
        weight = {n: (self.quality(n) + QUALITY_PRIOR) * self.validity(n) for n in names}
        total = sum(weight.values())
        return {n: p_min + (1.0 - k * p_min) * weight[n] / total for n in names}

    def choose(self, rng: random.Random, exclude: Iterable[str] = ()) -> str | None:
        """Roulette-wheel pick; None when every move is excluded."""
        probs = self.probabilities(exclude)
        if not probs:
            return None
        x = rng.random()
        acc = 0.0
        last = None
        for name, p in probs.items():  # dict order = self.names order: deterministic
            acc += p
            last = name
            if x < acc:
                return name
        return last  # rounding: the sums can fall a hair short of 1

    def update(self, name: str, r: float, valid: bool | None = None) -> None:
        """Credit ``r`` to ``name``; ``valid`` says whether an evaluated proposal passed its gates (None: the
        proposal was skipped before evaluation, which says nothing about the move's soundness)."""
        if valid is not None:
            self.evaluated[name] += 1
            self.valid[name] += int(valid)
        self.earned[name] += self.alpha * (r - self.earned[name])
        self.optimism[name] = 0.0 if valid is False else self.optimism[name] * (1.0 - self.alpha)

    def state_dict(self) -> dict[str, float]:
        return {n: self.quality(n) for n in self.names}
