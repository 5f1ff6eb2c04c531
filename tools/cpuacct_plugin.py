"""pytest plugin: CPU-seconds per test, every process the test started included (the sandboxed tools too, which
RUSAGE_CHILDREN misses). Each xdist worker joins a cgroup v1 cpuacct group of its own before every test (a test
that moves its process, as tools/bench.py's sandbox-cost check does, is undone) and appends
``nodeid, CPU s, wall s`` to ``$CPUACCT_OUT/<worker>.tsv``. Needs root and /sys/fs/cgroup/cpuacct.

    PYTHONPATH=tools CPUACCT_OUT=/tmp/cpuacct make test PYTEST_ARGS="-p cpuacct_plugin"

docs/testing.md's CPU per module came from it."""

from __future__ import annotations

import os
import time
from collections.abc import Generator
from pathlib import Path
from typing import TextIO

import pytest

ROOT = Path("/sys/fs/cgroup/cpuacct")
_group: Path | None = None
_out: TextIO | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _group, _out
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    _group = ROOT / f"hhtest-{worker}"
    _group.mkdir(exist_ok=True)
    out = Path(os.environ.get("CPUACCT_OUT", "/tmp/cpuacct"))
    out.mkdir(parents=True, exist_ok=True)
    _out = open(out / f"{worker}.tsv", "a")  # open for the session: one line a test


def _usage_ns() -> int:
    assert _group is not None
    return int((_group / "cpuacct.usage").read_text())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    assert _group is not None and _out is not None
    (_group / "cgroup.procs").write_text(str(os.getpid()))
    u0, t0 = _usage_ns(), time.monotonic()
    yield
    u1, t1 = _usage_ns(), time.monotonic()
    _out.write(f"{item.nodeid}\t{(u1 - u0) / 1e9:.2f}\t{t1 - t0:.2f}\n")
    _out.flush()
