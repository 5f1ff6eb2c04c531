"""Same result whoever runs the evaluations: --jobs 1 (inline) agrees with --jobs 2 (a process pool) on every
stable summary key and on the journal, with every move (test_repro.py's set-up, without its cocotb test:
shared_runs.every_move_run). Each run is a process of its own (its own hash seed), so this is where every move's
proposals are checked to repeat across processes. (Ray: test_repro_ray.py, on test_repro's FEW_MOVES set-up.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_runs import every_move_run
from test_repro import PARTS, fingerprint, run_once

pytestmark = [pytest.mark.tools, pytest.mark.slow]


@pytest.mark.timeout(1200)  # two every-move runs: ~150 s at load 7
def test_jobs_1_and_jobs_2_agree(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    design, jobs2 = every_move_run(tmp_path_factory)
    jobs1 = run_once(design, tmp_path / "jobs1", tmp_path / "cache", "--jobs", "1")
    reference, prints = fingerprint(jobs2), fingerprint(jobs1)
    for part in PARTS:
        assert prints[part] == reference[part], f"--jobs 1 differs from --jobs 2 in its {part}"
