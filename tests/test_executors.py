"""Executors: results come back in submission order; Ray runs on a local instance and reports a failed task as
a tool error. A whole run evaluated by Ray workers (gates and PPA, their cache folder, COMMANDS and evaluation
folders) against the local pool's: test_repro_ray.py."""

from __future__ import annotations

import math
import os

import pytest

from hyperheurist.errors import ConfigError, ToolError
from hyperheurist.executors import LocalExecutor, make_executor, ray_env_vars


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


def test_local_pool_progress_in_completion_order_results_in_submission_order() -> None:
    seen: list[int] = []
    ex = LocalExecutor(2)
    try:
        out = ex.map(_square_after, range(5), progress=lambda i, r: seen.append(i))
    finally:
        ex.shutdown()
    assert out == [(i, i * i) for i in range(5)]
    assert sorted(seen) == list(range(5))
    inline: list[tuple[int, object]] = []
    assert LocalExecutor(1).map(abs, [-1, -2], progress=lambda i, r: inline.append((i, r))) == [1, 2]
    assert inline == [(0, 1), (1, 2)]


def test_single_job_runs_inline() -> None:
    ex = LocalExecutor(1)
    assert ex.map(_pid, [1, 2]) == [os.getpid()] * 2


def test_unknown_executor() -> None:
    with pytest.raises(ConfigError, match="unknown executor"):
        make_executor("slurm", 1)


def test_ray_env_vars_forward_settings_not_secrets() -> None:
    env = {"PATH": "/usr/bin", "HH_CACHE_DIR": "/c", "HH_YOSYS": "/y", "HH_API_KEY": "k", "OPENAI_API_KEY": "s",
           "HOME": "/root"}
    assert ray_env_vars(env) == {"PATH": "/usr/bin", "HH_CACHE_DIR": "/c", "HH_YOSYS": "/y"}


@pytest.fixture(scope="module")
def ray_executor():
    pytest.importorskip("ray", reason="Ray is an optional extra: pip install 'hyperheurist[ray]'")
    os.environ.pop("RAY_ADDRESS", None)  # always a local instance in tests
    ex = make_executor("ray", 2)
    yield ex
    ex.shutdown()


def test_ray_local_instance(ray_executor) -> None:
    # functions must be importable on the workers: package or stdlib ones, not this test module
    assert ray_executor.map(math.factorial, range(8)) == [math.factorial(i) for i in range(8)]
    seen: list[int] = []
    assert ray_executor.map(math.factorial, range(4), progress=lambda i, r: seen.append(i)) == [1, 1, 2, 6]
    assert sorted(seen) == [0, 1, 2, 3]


def test_ray_task_failure_is_a_tool_error(ray_executor) -> None:
    with pytest.raises(ToolError, match="a Ray task failed: .*math domain error.*Scaling out with Ray"):
        ray_executor.map(math.sqrt, [4.0, -1.0])

