"""The temperature schedule of the annealer: Metropolis acceptance, automatic T0, cooling and reheats.

T0 is calibrated per run from the uphill cost deltas the first iterations show (the median accepted
with probability 0.5), so a design whose costs move by 1e-3 and one whose costs move by 1 both start
with a real chance of going uphill. Until T0 is fixed the chains descend greedily.

``anneal.schedule``: ``geometric`` cools by ``cooling`` every iteration. ``acceptance`` steers each chain's
temperature so that the share of its judged proposals it accepts follows the modified Lam target (high at the
start, 0.44 through the middle, falling to ~0 at the end; Swartz and Sechen's placer schedule): a T0 that the
few calibration samples made too hot (a random walk) is cooled within a few iterations, whatever the design's
cost scale. The steering never heats above T0 (a reheat still does).
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
# the acceptance schedule: the rate is a running mean over the chain's last few judged proposals (a run has
# tens, not Lam's millions), and the temperature moves by this factor per iteration towards the target
RATE_MEMORY = 0.75
STEER = 0.8


def lam_target(progress: float) -> float:
    """The modified Lam schedule's target acceptance rate at ``progress`` (0..1) of the run."""
    p = min(max(progress, 0.0), 1.0)
    if p < 0.15:
        return 0.44 + 0.56 * math.pow(560.0, -p / 0.15)
    if p < 0.65:
        return 0.44
    return 0.44 * math.pow(440.0, -(p - 0.65) / 0.35)


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
    rate: float | None = None  # the acceptance schedule's running acceptance rate (None: nothing judged yet)

    def step(self, improved: bool, t0: float | None, config: Anneal, judged: bool | None = None,
             progress: float = 0.0) -> bool:
        """Advance one iteration; True when the chain was reheated. ``judged``: this iteration's proposal was
        accepted (True) or rejected (False) on its cost at this temperature; None when its cost did not decide
        (invalid, not applicable, a known netlist). ``progress``: the share of the run's iterations done."""
        self.since_best = 0 if improved else self.since_best + 1
        if judged is not None:
            self.rate = float(judged) if self.rate is None else RATE_MEMORY * self.rate + (1 - RATE_MEMORY) * judged
        if self.value is None or t0 is None:
            return False
        if self.since_best >= config.reheat_after:
            self.since_best = 0
            level = t0 * REHEAT_DECAY ** self.reheats
            self.reheats += 1
            self.value = max(self.value, level, config.t_min)
            return True
        if config.schedule == "geometric":
            self.value = max(config.t_min, self.value * config.cooling)
        elif self.rate is not None:  # steered, never above T0: no hotter than the calibration asked for
            steered = self.value * (STEER if self.rate > lam_target(progress) else 1 / STEER)
            self.value = max(config.t_min, min(steered, max(t0, config.t_min)))
        return False
