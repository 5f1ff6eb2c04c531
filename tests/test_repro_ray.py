"""Same result whoever runs the evaluations: the Ray executor agrees with --jobs 2 (a local process pool) on every
stable summary key and on the journal, with every move (test_repro_jobs.py's set-up and its --jobs 2 run, made
once per session by shared_runs.every_move_run; a module of its own so that it runs beside test_repro_jobs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_runs import EVERY_MOVE_ITERATIONS, every_move_run
from test_repro import PARTS, fingerprint, run_once, small_design

pytestmark = [pytest.mark.tools, pytest.mark.slow]


@pytest.mark.timeout(1200)  # two every-move runs (one may be test_repro_jobs's, waited for): ~200 s at load 5
def test_ray_and_jobs_2_agree(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    pytest.importorskip("ray")
    # a copy of the set-up, not the shared design.yaml: asking for that waits while the other worker makes the
    # --jobs 2 run, so Ray runs first and the shared run is read after (the fingerprint names no path)
    design = small_design(tmp_path, iterations=EVERY_MOVE_ITERATIONS, moves=None, cocotb=False)
    ray = run_once(design, tmp_path / "ray", tmp_path / "cache", "--jobs", "2", "--executor", "ray")
    _, jobs2 = every_move_run(tmp_path_factory)
    reference, prints = fingerprint(jobs2), fingerprint(ray)
    for part in PARTS:
        assert prints[part] == reference[part], f"Ray differs from --jobs 2 in its {part}"
