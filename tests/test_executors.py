"""Executors: results come back in submission order; Ray runs on a local instance."""

from __future__ import annotations

import os

import pytest

from hyperheurist.errors import ConfigError
from hyperheurist.executors import LocalExecutor, make_executor


def _square_after(x: int) -> tuple[int, int]:
    import time

    time.sleep(0.05 * (5 - x))  # later items finish first: order must still be kept
    return x, x * x


def _pid(_x: int) -> int:
    return os.getpid()


def test_local_pool_keeps_order() -> None:
    ex = LocalExecutor(2)
    try:
        assert ex.map(_square_after, range(5)) == [(i, i * i) for i in range(5)]
        assert len(set(ex.map(_pid, range(8)))) >= 1
    finally:
        ex.shutdown()


def test_single_job_runs_inline() -> None:
    ex = LocalExecutor(1)
    assert ex.map(_pid, [1, 2]) == [os.getpid()] * 2


def test_unknown_executor() -> None:
    with pytest.raises(ConfigError, match="unknown executor"):
        make_executor("slurm", 1)


def test_ray_local_instance() -> None:
    pytest.importorskip("ray", reason="Ray is an optional extra: pip install 'hyperheurist[ray]'")
    import math

    ex = make_executor("ray", 2)
    try:  # functions must be importable on the workers: package or stdlib ones, not this test module
        assert ex.map(math.factorial, range(8)) == [math.factorial(i) for i in range(8)]
    finally:
        ex.shutdown()
