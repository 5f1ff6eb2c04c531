"""Same result whoever runs the evaluations: --jobs 1 (inline) agrees with --jobs 2 (a process pool) on every
stable summary key and on the journal, on test_repro.py's set-up (FEW_MOVES: RTL moves gated and proven against
their parent, the tunable and recipe knobs, two chains, the finish). The --jobs 2 run is the first of test_repro's
three cold runs (shared_runs.few_moves_run), asked for after this module's own run so that neither module waits
for the other. Every move's proposals repeating across processes: test_moves_repeat.py. (Ray: test_repro_ray.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_runs import few_moves_run
from test_repro import PARTS, fingerprint, run_once, small_design

pytestmark = [pytest.mark.tools, pytest.mark.slow]


@pytest.mark.timeout(900)  # two runs of the set-up (one may be test_repro's, waited for)
def test_jobs_1_and_jobs_2_agree(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    jobs1 = run_once(small_design(tmp_path), tmp_path / "jobs1", tmp_path / "cache", "--jobs", "1")
    reference, prints = fingerprint(few_moves_run(tmp_path_factory)), fingerprint(jobs1)
    for part in PARTS:
        assert prints[part] == reference[part], f"--jobs 1 differs from --jobs 2 in its {part}"
