"""Same result whoever runs the evaluations: --jobs 1 (inline) agrees with --jobs 2 (a process pool) on every
stable summary key and on the journal, with every move (test_repro.py's set-up; Ray: test_repro_ray.py). Each run
is a process of its own (its own hash seed), so this is also where every move's proposals are checked to repeat
across processes. The --jobs 2 run is made once per session (shared_runs.every_move_run) and compared with by both
modules, each a module of its own so that they run on both pytest-xdist workers."""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_runs import every_move_run
from test_repro import PARTS, fingerprint, run_once

pytestmark = [pytest.mark.tools, pytest.mark.slow]


@pytest.mark.timeout(1200)  # two every-move runs (one may be test_repro_ray's, waited for): ~200 s at load 5
def test_jobs_1_and_jobs_2_agree(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    design, jobs2 = every_move_run(tmp_path_factory)  # first: the other module runs Ray meanwhile, then reads it
    jobs1 = run_once(design, tmp_path / "jobs1", tmp_path / "cache", "--jobs", "1")
    reference, prints = fingerprint(jobs2), fingerprint(jobs1)
    for part in PARTS:
        assert prints[part] == reference[part], f"--jobs 1 differs from --jobs 2 in its {part}"
