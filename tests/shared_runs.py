"""Runs that several test modules only read, made once per test session and shared by the pytest-xdist workers.

Each module used to make its own `hh run` of the same design with the same settings (test_flow, test_faults,
test_journal_tamper, test_report each ran tests/data/flow once). Here the first worker that asks makes the run
under an exclusive lock in the session's temp root (the folder all workers' temp folders share); the others wait
for the lock and read the finished run. A test that changes a run (tampers with it, resumes it, re-renders it)
works on ``copy_run(...)``, never on the shared folder.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

FLOW = Path(__file__).parent / "data" / "flow" / "design.yaml"
REPO = Path(__file__).resolve().parent.parent
HH = [sys.executable, "-m", "hyperheurist"]


def _root(factory: pytest.TempPathFactory) -> Path:
    """The session's temp root: shared by the xdist workers (each has its own basetemp below it), or this
    process's own basetemp without xdist."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once(factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """``<root>/shared/<name>``, made by ``make(folder)`` exactly once per session (a failed attempt is retried by
    the next caller, so every test that needs it reports the failure)."""
    folder = _root(factory) / "shared" / name
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = folder.parent / f"{name}.done"
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            done.touch()
    return folder


def the_run(out: Path) -> Path:
    (run,) = [p for p in out.glob("*/*") if p.is_dir()]
    return run


def hh_run(design: Path, folder: Path, *args: str) -> Path:
    """``hh run design`` into ``folder/out`` with a cold PPA cache of its own (``folder/cache``); its run folder."""
    res = subprocess.run([*HH, "run", str(design), "--out", str(folder / "out"), "--quiet", *args],
                         capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL,
                         env={**os.environ, "HH_CACHE_DIR": str(folder / "cache")})
    assert res.returncode == 0, res.stderr
    return the_run(folder / "out")


def flow_run(factory: pytest.TempPathFactory) -> Path:
    """tests/data/flow, complete, with its report: ``hh run design.yaml --quiet --jobs 2`` (the design's seed 1,
    4 iterations, 2 chains) on a cold cache."""
    def make(folder: Path) -> None:
        hh_run(FLOW, folder, "--jobs", "2")

    return the_run(once(factory, "flow", make) / "out")


def cache_of(run: Path) -> Path:
    """The cold PPA cache a shared run was made with (``<folder>/cache`` beside ``<folder>/out/<design>/<run>``)."""
    return run.parents[2] / "cache"


def copy_run(run: Path, dst: Path) -> Path:
    """A private copy of a shared run, for a test that changes it."""
    shutil.copytree(run, dst, ignore=shutil.ignore_patterns(".lock"))
    return dst


def two_valid_run(factory: pytest.TempPathFactory) -> Path:
    """test_repro_resume's set-up (traffic_fsm, both valid seeds, its three MOVES, 2 iterations, 2 chains) run at
    ``--jobs 2`` on a cold cache: the run that module's faulted and killed chain must end equal to, and the
    reference test_repro_ray's Ray run of the same set-up must agree with (made once per session by whichever
    module asks first; the Ray module asks after its own run)."""
    from test_repro import run_once, small_design
    from test_repro_resume import MOVES

    def make(folder: Path) -> None:
        design = small_design(folder, iterations=2, both_valid=True, moves=MOVES)
        run_once(design, folder / "out", folder / "cache", "--jobs", "2")

    return the_run(once(factory, "two-valid", make) / "out")


def wheel(factory: pytest.TempPathFactory) -> Path:
    """A wheel of this checkout (``pip wheel --no-deps`` of a copy of the source tree: the build writes build/ and
    *.egg-info, which must not land in the checkout), built once per session for test_wheel and
    test_actions_example (each build ~5 CPU s, and pip's isolated build environment fetched from the registry)."""
    def make(folder: Path) -> None:
        src = folder / "src"
        shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(
            ".git", ".venv", "runs", "results*", "build", "*.egg-info", "__pycache__", ".pytest_cache", "tests",
            "benchmarks", ".mypy_cache", ".ruff_cache", ".hypothesis"))
        res = subprocess.run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "-q", "-w",
                              str(folder / "dist")], capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, res.stderr[-2000:]
        shutil.rmtree(src)

    return next((once(factory, "wheel", make) / "dist").glob("hyperheurist-*.whl"))
