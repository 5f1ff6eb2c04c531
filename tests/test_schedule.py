"""The annealer's temperature schedules (search/schedule.py): the geometric one and the acceptance-steered one
(``anneal.schedule: acceptance``, the modified Lam target)."""

from __future__ import annotations

import pytest
from test_search_annealer import MOVES as FAKE_MOVES
from test_search_annealer import FakeEvaluator, ctx_factory, starts

from hyperheurist.config import Anneal
from hyperheurist.search.annealer import anneal
from hyperheurist.search.schedule import STEER, Temperature, lam_target


def test_lam_target_starts_at_one_holds_044_and_falls_to_about_zero() -> None:
    assert lam_target(0.0) == pytest.approx(1.0)
    assert lam_target(0.15) == lam_target(0.4) == lam_target(0.6499) == 0.44
    assert lam_target(1.0) == pytest.approx(0.001)
    points = [lam_target(i / 100) for i in range(101)]
    assert all(a >= b for a, b in zip(points, points[1:], strict=False))  # never rises
    assert lam_target(-1) == lam_target(0) and lam_target(2) == lam_target(1)  # clamped


def test_a_chain_accepting_everything_is_cooled_and_one_accepting_nothing_warms_back_to_t0_only() -> None:
    cfg = Anneal(schedule="acceptance", t_min=1e-4, reheat_after=1000)
    hot = Temperature(value=1.0)
    for _ in range(5):
        hot.step(False, 1.0, cfg, judged=True, progress=0.5)  # rate 1.0 > 0.44: a random walk
    assert hot.value == pytest.approx(STEER ** 5)
    cold = Temperature(value=0.01)
    for _ in range(40):
        cold.step(False, 1.0, cfg, judged=False, progress=0.5)  # rate 0 < 0.44
    assert cold.value == 1.0  # warmed, but never above T0
    floor = Temperature(value=2e-4)
    for _ in range(10):
        floor.step(False, 1.0, cfg, judged=True, progress=0.99)
    assert floor.value == cfg.t_min


def test_proposals_the_cost_did_not_decide_leave_the_rate_alone() -> None:
    cfg = Anneal(schedule="acceptance", reheat_after=1000)
    t = Temperature(value=0.5)
    t.step(False, 1.0, cfg, judged=True, progress=0.5)
    rate = t.rate
    t.step(False, 1.0, cfg, judged=None, progress=0.5)  # invalid, not applicable or a known netlist
    assert t.rate == rate


def test_the_geometric_schedule_ignores_the_rate() -> None:
    cfg = Anneal(cooling=0.5, reheat_after=1000)
    t = Temperature(value=1.0)
    t.step(False, 1.0, cfg, judged=False, progress=0.5)
    assert t.value == 0.5  # cooled although nothing was accepted


def test_greedy_until_t0_is_fixed_under_either_schedule() -> None:
    for schedule in ("geometric", "acceptance"):
        t = Temperature()
        assert not t.step(False, None, Anneal(schedule=schedule), judged=True, progress=0.1)
        assert t.value is None


def _temperatures(schedule: str) -> list[float]:
    records: list[dict] = []
    fake = FakeEvaluator()
    cfg = Anneal(seed=2, chains=2, iterations=30, t0=50.0, reheat_after=1000, polish=0, schedule=schedule)
    anneal(starts(fake), list(FAKE_MOVES), ctx_factory, fake, cfg, lambda rec: records.append(rec.to_json()))
    return [r["temperature"] for r in records if r.get("chain") == 0 and r.get("temperature") is not None]


def test_a_run_started_far_too_hot_is_cooled_by_the_acceptance_schedule() -> None:
    """T0 = 50 on costs near 1 accepts every uphill step (a random walk); geometric cooling at 0.95 is still at
    ~11 after 30 iterations, the acceptance schedule brings it down to where uphill steps are rare."""
    geometric, steered = _temperatures("geometric"), _temperatures("acceptance")
    assert geometric[-1] > 10
    assert steered[-1] < 0.05 * geometric[-1]
    assert max(steered) <= 50.0
