"""ppa.objective: weighted (the mean of ratios) and constrained (meet the clock, then area and power)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperheurist.candidate import Candidate
from hyperheurist.config import Weights, load_design
from hyperheurist.errors import ConfigError
from hyperheurist.estimate import estimate
from hyperheurist.ppa import PPAMetrics
from hyperheurist.ppa.cost import INFEASIBLE, cost
from hyperheurist.recipe import Recipe

ADDER = Path(__file__).resolve().parent.parent / "benchmarks" / "adder32"


def _m(area: float, delay: float, power: float, period: float = 5.0) -> PPAMetrics:
    slack = period - delay
    return PPAMetrics(area_um2=area, cells=1, cell_histogram={}, delay_ns=delay, slack_ns=slack,
                      fmax_mhz=1000 / delay, met_timing=slack >= 0, critical_path={}, power_mw=power,
                      dynamic_mw=power, leakage_mw=0.0, power_fidelity="vectorless", liberty="x", timings={})


W = Weights(area=1, delay=1, power=1)
BASE = _m(1000, 4.0, 1.0)


def test_weighted_rewards_slack_constrained_does_not() -> None:
    small_slow = _m(800, 4.9, 1.0)   # meets the 5 ns clock, 20% smaller
    big_fast = _m(1200, 2.0, 1.0)    # meets it with 3 ns to spare, 20% larger
    def w(m: PPAMetrics) -> float:
        return cost(m, BASE, W, 5.0, 2.0, "weighted")

    def c(m: PPAMetrics) -> float:
        return cost(m, BASE, W, 5.0, 2.0, "constrained")

    assert w(big_fast) < w(small_slow)          # the old objective prefers the faster, larger design
    assert c(small_slow) < c(big_fast)          # constrained: both meet the clock, smaller wins
    assert c(small_slow) == pytest.approx((0.8 + 1.0) / 2)
    assert c(BASE) == pytest.approx(1.0) and w(BASE) == pytest.approx(1.0)


def test_constrained_violation_is_worse_than_any_reasonable_feasible_design() -> None:
    tiny_late = _m(100, 5.5, 0.1)     # 10x smaller but misses the clock by 0.5 ns
    huge_ok = _m(20000, 5.0, 20.0)    # 20x larger, meets it exactly
    def c(m: PPAMetrics) -> float:
        return cost(m, BASE, W, 5.0, 2.0, "constrained")

    assert c(huge_ok) < c(tiny_late)
    assert c(tiny_late) == pytest.approx((0.1 + 0.1) / 2 + INFEASIBLE + 2.0 * 0.5 / 5.0)
    assert c(_m(100, 5.2, 0.1)) < c(tiny_late)   # among violators, less violation is better


def test_constrained_ignores_the_delay_weight() -> None:
    a = _m(900, 4.0, 1.0)
    assert cost(a, BASE, Weights(area=1, delay=5, power=1), 5.0, 2.0, "constrained") == pytest.approx(0.95)
    assert cost(a, BASE, Weights(area=1, delay=0, power=0), 5.0, 2.0, "constrained") == pytest.approx(0.9)
    with pytest.raises(ValueError):
        cost(a, BASE, Weights(area=0, delay=1, power=0), 5.0, 2.0, "constrained")
    with pytest.raises(ValueError):
        cost(a, BASE, W, 5.0, 2.0, "fastest")


def test_objective_in_design_yaml() -> None:
    d = load_design(ADDER / "design.yaml", {"ppa.objective": "constrained"})
    assert d.ppa.objective == "constrained"
    assert load_design(ADDER / "design.yaml").ppa.objective == "weighted"  # the benchmark declares it


def test_the_default_objective_does_not_call_a_design_better_for_slack_it_does_not_need() -> None:
    """A design.yaml that says nothing gets the constrained objective: before, the weighted mean scored a UART
    with 6.7 ns of slack at its clock -10.8% better for delay -38%, area +1.2%, power +4.6%."""
    from hyperheurist.config import PPA

    assert PPA().objective == "constrained"
    base, faster = _m(1000.0, 3.3, 1.0, period=10.0), _m(1012.0, 3.3 * 0.62, 1.046, period=10.0)
    ppa = PPA()
    assert cost(faster, base, ppa.weights, 10.0, ppa.timing_penalty, "weighted") < 1.0  # what it was
    assert cost(faster, base, ppa.weights, 10.0, ppa.timing_penalty, ppa.objective) > 1.0
    with pytest.raises(ConfigError, match="objective"):
        load_design(ADDER / "design.yaml", {"ppa.objective": "fastest"})
    with pytest.raises(ConfigError, match="objective constrained"):
        load_design(ADDER / "design.yaml", {"ppa.objective": "constrained", "ppa.weights.area": 0,
                                            "ppa.weights.power": 0})


@pytest.mark.tools
def test_real_adders_ranked_by_objective(tmp_path: Path) -> None:
    """Ripple carry (small, slow) vs Kogge-Stone (large, fast), both under a loose 20 ns clock:
    with delay weighted 4x, the weighted objective pays for the prefix adder's speed beyond the clock;
    the constrained one does not."""
    d = load_design(ADDER / "design.yaml", {"ppa.clock_period_ns": 20.0})
    base = Candidate.from_paths([ADDER / "seeds" / "ok_2_prefix.v"], d.top)
    ripple = base.with_params({"ARCH": "0"}, move="test")
    prefix = base.with_params({"ARCH": "1"}, move="test")
    mr = estimate(ripple, d, Recipe(), tmp_path / "r")
    mp = estimate(prefix, d, Recipe(), tmp_path / "p")
    assert mr.met_timing and mp.met_timing
    assert mr.area_um2 < mp.area_um2 and mp.delay_ns < mr.delay_ns
    w = Weights(area=1, delay=4, power=1)  # a designer who cares about speed, but only up to the clock
    weighted = [cost(m, mr, w, 20.0, d.ppa.timing_penalty, "weighted") for m in (mr, mp)]
    constrained = [cost(m, mr, w, 20.0, d.ppa.timing_penalty, "constrained") for m in (mr, mp)]
    assert constrained[0] < constrained[1]
    assert weighted[1] < weighted[0]  # the prefix adder's speed outweighs its area under the old objective
