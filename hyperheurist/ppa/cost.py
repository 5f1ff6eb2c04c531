"""The scalar cost the annealer minimises, under one of two objectives (``ppa.objective``).

weighted (declared by the benchmarks, whose recorded figures use it):
    cost = (w_a * A/A0 + w_d * D/D0 + w_p * P/P0) / (w_a + w_d + w_p)
           + timing_penalty * max(0, (D - period) / period)
    A shorter critical path counts even when the clock is met with room to spare: a UART with 6.7 ns of
    slack scored -10.8% for delay -38%, area +1.2%, power +4.6%. Where the clock is the target, use
    constrained (``hh init`` writes it for a clocked design).

constrained (the default of ``ppa.objective``): the clock period is a hard constraint, then area and power
are minimised.
    feasible (slack >= 0):  cost = (w_a * A/A0 + w_p * P/P0) / (w_a + w_p)
    violating:              cost = that + INFEASIBLE + timing_penalty * (-slack / period)
    Slack beyond the period earns nothing: a smaller design that meets the clock beats a larger,
    faster one. INFEASIBLE puts every violating design above every feasible one whose area/power
    cost stays below it (a design 100x the baseline); among violators, less violation is better.

A, D, P are area (um2), critical-path delay (ns) and total power (mW); A0, D0, P0 the baseline's
(the first valid candidate). The baseline scores 1.0 when it meets timing. A zero baseline value
(e.g. a design with no timed path) makes that ratio 1 so it neither rewards nor punishes.
"""

from __future__ import annotations

from ..config import Weights
from .metrics import PPAMetrics

OBJECTIVES = ("weighted", "constrained")
INFEASIBLE = 100.0  # constrained: the offset of a design that misses the clock


def _ratio(value: float, base: float) -> float:
    if base > 0:
        return value / base
    return 1.0 if value <= 0 else 1.0 + value


def violation(m: PPAMetrics, clock_period_ns: float) -> float:
    """How far the design misses the clock (negative slack), as a fraction of the period; 0 when met."""
    if m.met_timing or clock_period_ns <= 0:
        return 0.0
    return max(0.0, -m.slack_ns) / clock_period_ns


def cost(m: PPAMetrics, baseline: PPAMetrics, weights: Weights, clock_period_ns: float,
         timing_penalty: float, objective: str = "constrained") -> float:
    if objective == "constrained":
        w = weights.area + weights.power
        if w <= 0:
            raise ValueError("the constrained objective needs a positive area or power weight")
        ap = (weights.area * _ratio(m.area_um2, baseline.area_um2)
              + weights.power * _ratio(m.power_mw, baseline.power_mw)) / w
        over = violation(m, clock_period_ns)
        return ap + (INFEASIBLE + timing_penalty * over if over > 0 else 0.0)
    if objective != "weighted":
        raise ValueError(f"unknown objective {objective!r}: use one of {', '.join(OBJECTIVES)}")
    total_w = weights.area + weights.delay + weights.power
    mean = (weights.area * _ratio(m.area_um2, baseline.area_um2)
            + weights.delay * _ratio(m.delay_ns, baseline.delay_ns)
            + weights.power * _ratio(m.power_mw, baseline.power_mw)) / total_w
    over = max(0.0, (m.delay_ns - clock_period_ns) / clock_period_ns) if clock_period_ns > 0 else 0.0
    return mean + timing_penalty * over
