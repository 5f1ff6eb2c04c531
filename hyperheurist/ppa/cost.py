"""The scalar cost the annealer minimises.

cost = (w_a * A/A0 + w_d * D/D0 + w_p * P/P0) / (w_a + w_d + w_p)
       + timing_penalty * max(0, (D - period) / period)

A, D, P are area (um2), critical-path delay (ns) and total power (mW); A0, D0, P0 the baseline's
(the first valid candidate). The baseline scores 1.0 when it meets timing. A zero baseline value
(e.g. a design with no timed path) makes that ratio 1 so it neither rewards nor punishes.
"""

from __future__ import annotations

from ..config import Weights
from .metrics import PPAMetrics


def _ratio(value: float, base: float) -> float:
    if base > 0:
        return value / base
    return 1.0 if value <= 0 else 1.0 + value


def cost(m: PPAMetrics, baseline: PPAMetrics, weights: Weights, clock_period_ns: float,
         timing_penalty: float) -> float:
    total_w = weights.area + weights.delay + weights.power
    mean = (weights.area * _ratio(m.area_um2, baseline.area_um2)
            + weights.delay * _ratio(m.delay_ns, baseline.delay_ns)
            + weights.power * _ratio(m.power_mw, baseline.power_mw)) / total_w
    over = max(0.0, (m.delay_ns - clock_period_ns) / clock_period_ns) if clock_period_ns > 0 else 0.0
    return mean + timing_penalty * over
