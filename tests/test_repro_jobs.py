"""Same result whoever runs the evaluations: --jobs 1, --jobs 2 and the Ray executor agree on every stable summary
key and on the journal (test_repro.py's set-up with every move, a module of its own so that it runs on one
pytest-xdist worker while test_repro's cold runs and test_repro_resume run on the other). Each run is a process of
its own (its own hash seed), so this is also where every move's proposals are checked to repeat across processes."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_repro import PARTS, fingerprint, run_once, small_design

pytestmark = [pytest.mark.tools, pytest.mark.slow]


@pytest.mark.timeout(2400)  # three every-move runs: over 900 s at load 8 (fresh-clone run, 2026-12-06)
def test_jobs_1_jobs_2_and_ray_agree(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    design = small_design(tmp_path, iterations=6, moves=None)
    runs = {"jobs1": ("--jobs", "1"), "jobs2": ("--jobs", "2"), "ray": ("--jobs", "2", "--executor", "ray")}
    prints = {name: fingerprint(run_once(design, tmp_path / name, tmp_path / f"cache-{name}", *args))
              for name, args in runs.items()}
    for name in ("jobs2", "ray"):
        for part in PARTS:
            assert prints[name][part] == prints["jobs1"][part], f"{name} differs from --jobs 1 in its {part}"
