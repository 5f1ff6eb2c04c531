"""Same result whoever runs the evaluations: the Ray executor agrees with --jobs 2 (a local process pool) on every
stable summary key and on the journal, on test_repro_resume.py's set-up (traffic_fsm with both valid seeds and the
rejected ones, an RTL move gated and proven against its parent, the tunable and a recipe knob, two chains; its
--jobs 2 run is that module's reference, made once per session by shared_runs.two_valid_run; a module of its own
so that it runs beside the others). The Ray workers get what the pool's workers get: the run's cache folder
(HH_CACHE_DIR) and worker_init (the run's COMMANDS), and they write the evaluation folders into the run folder.
(With test_repro.py's larger FEW_MOVES set-up the module took ~6 CPU s more: 37 against 31-32.) Every move's
proposals repeating across processes: test_moves_repeat.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_runs import cache_of, two_valid_run
from test_repro import PARTS, fingerprint, run_once, small_design
from test_repro_resume import MOVES

pytestmark = [pytest.mark.tools, pytest.mark.slow]


def ppa_entries(cache: Path) -> set[str]:
    return {str(p.relative_to(cache)) for p in (cache / "ppa").rglob("*.json")}


def eval_folders(run: Path) -> set[str]:
    return {str(p.relative_to(run)) for p in run.glob("candidates/*/eval-*") if p.is_dir()}


@pytest.mark.timeout(900)  # two runs of the set-up (one may be test_repro's, waited for)
def test_ray_and_jobs_2_agree(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    pytest.importorskip("ray")
    # a copy of the set-up: Ray runs first while test_repro_resume makes the --jobs 2 run on another worker, which
    # is read after (the fingerprint names no path)
    design = small_design(tmp_path, iterations=2, both_valid=True, moves=MOVES)
    ray = run_once(design, tmp_path / "ray", tmp_path / "cache", "--jobs", "2", "--executor", "ray")
    jobs2 = two_valid_run(tmp_path_factory)
    reference, prints = fingerprint(jobs2), fingerprint(ray)
    for part in PARTS:
        assert prints[part] == reference[part], f"Ray differs from --jobs 2 in its {part}"
    assert any(r[1] == "invalid" for r in prints["phase1"]), "a rejected candidate's gate is compared too"
    # Only the workers evaluate (the driver writes no PPA entry): without HH_CACHE_DIR they would fill
    # ~/.cache/hyperheurist, and this folder would lack what the --jobs 2 run's holds.
    jobs2_cache = cache_of(jobs2)
    assert ppa_entries(jobs2_cache), jobs2_cache
    assert ppa_entries(tmp_path / "cache") == ppa_entries(jobs2_cache), "HH_CACHE_DIR did not reach the Ray workers"
    # the tool lines come from the workers (without worker_init they would log nowhere)
    assert "\n# yosys: " in (ray / "COMMANDS").read_text(), "worker_init did not run on the Ray workers"
    assert eval_folders(ray) == eval_folders(jobs2) != set(), "the workers' evaluation folders"
