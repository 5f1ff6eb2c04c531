"""The temperature schedule of the annealer: Metropolis acceptance, automatic T0, cooling and reheats.

T0 is calibrated per run from the uphill cost deltas the first iterations show (the median accepted
with probability 0.5), so a design whose costs move by 1e-3 and one whose costs move by 1 both start
with a real chance of going uphill. Until T0 is fixed the chains descend greedily.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from ..config import Anneal

REHEAT_DECAY = 0.5  # each reheat of a chain restarts from half the previous reheat temperature
# automatic T0: uphill deltas gathered until this many are seen, or this many iterations passed with one
CALIBRATION_SAMPLES = 6
CALIBRATION_ITERATIONS = 4


def acceptance_probability(delta: float, temperature: float | None) -> float:
    """Metropolis: 1 for a non-worsening move, exp(-delta/T) for an uphill one, 0 at T<=0."""
    if math.isnan(delta):
        return 0.0
    if delta <= 0:
        return 1.0
    if temperature is None or not temperature > 0:
        return 0.0
    return math.exp(-min(delta / temperature, 745.0))


def initial_temperature(uphill: Sequence[float]) -> float | None:
    """T0 accepting the median uphill delta with probability 0.5 (None without samples); the median, so
    one huge delta (a clock miss under the constrained objective) does not make the run a random walk."""
    ups = sorted(d for d in uphill if d > 0 and math.isfinite(d))
    if not ups:
        return None
    return statistics.median(ups) / math.log(2.0)


@dataclass
class Calibration:
    """Uphill deltas gathered until an automatic T0 can be fixed (``config.t0`` unset)."""

    t_min: float
    uphill: list[float]

    def add(self, delta: float) -> None:
        if delta > 0 and math.isfinite(delta):
            self.uphill.append(delta)

    def t0(self, iteration: int) -> float | None:
        """T0 once CALIBRATION_SAMPLES deltas are in, or CALIBRATION_ITERATIONS passed with any (one
        iteration's 1-2 samples were too few); None while still gathering or without any sample."""
        if len(self.uphill) < CALIBRATION_SAMPLES and iteration + 1 < CALIBRATION_ITERATIONS:
            return None
        t0 = initial_temperature(self.uphill)
        return None if t0 is None else max(t0, self.t_min)


@dataclass
class Temperature:
    """One chain's temperature: geometric cooling, a reheat after ``reheat_after`` iterations
    without a new chain best (to a level that halves with every reheat)."""

    value: float | None = None  # None: T0 not fixed yet (greedy)
    since_best: int = 0
    reheats: int = 0

    def step(self, improved: bool, t0: float | None, config: Anneal) -> bool:
        """Advance one iteration; True when the chain was reheated."""
        self.since_best = 0 if improved else self.since_best + 1
        if self.value is None or t0 is None:
            return False
        if self.since_best >= config.reheat_after:
            self.since_best = 0
            level = t0 * REHEAT_DECAY ** self.reheats
            self.reheats += 1
            self.value = max(self.value, level, config.t_min)
            return True
        self.value = max(config.t_min, self.value * config.cooling)
        return False
