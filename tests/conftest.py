"""Shared fixtures. Tests that need real tools are marked `tools`; CI installs them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests explore a fixed set of examples (derived from each test's name), so CI is not at the
# mercy of the random draw; a newly found counterexample is a local `--hypothesis-seed` run away.
settings.register_profile("hh", derandomize=True, database=None)
settings.load_profile("hh")

REPO = Path(__file__).resolve().parent.parent
BENCHMARKS = REPO / "benchmarks"


@pytest.fixture(scope="session", autouse=True)
def _session_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Each test session uses its own PPA cache, so results never leak from a developer's machine. Set for the
    session, before the first fixture of any scope: set per test, it came after a module's fixtures, whose runs
    read and filled ~/.cache/hyperheurist (cheaper on a machine that had run the suite before than in CI)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "hh-cache"))
        yield


@pytest.fixture
def repo() -> Path:
    return REPO


# `make check`: the fast tier of trust-critical tests (sandbox and limits, a refuted broken design per gate,
# golden argv, journal tamper, Ctrl-C/kill and resume). Listed here, in one place, rather than marked file by
# file, so the tier is read at a glance; a module named here brings all its tests.
CHECK_MODULES = {
    "test_architecture",
    "test_check_tier",
    "test_containment",
    "test_crash_verdicts",
    "test_formal_check",
    "test_gates",
    "test_golden_gates",
    "test_golden_ppa",
    "test_input_paths",
    "test_input_paths_more",
    "test_journal_tamper",
    "test_mismatch_rules",
    "test_netlist_sim",
    "test_process_lifecycle",
    "test_proof_driver",
    "test_record",
    "test_reference_policy",
    "test_runner",
    "test_sandbox_identity",
    "test_sandbox_mounts",
    "test_session_cache",
    "test_summary_model",
    "test_untrusted_rtl",
}
CHECK_TESTS = {
    "test_faults.py::test_ctrl_c_stops_cleanly_and_resumes",
    "test_faults.py::test_damaged_journal_resume_is_exit_2",
    "test_formal.py::test_stuck_carry_adder_is_refuted_and_replayed",
    "test_formal.py::test_golden_x_is_a_dont_care_candidate_x_is_a_difference",
    "test_formal.py::test_a_check_the_wall_clock_stopped_is_a_tool_fault_never_a_verdict",
    "test_bad_inputs.py::test_bad_configs_one_line_exit_2",
    "test_bad_inputs.py::test_missing_and_unusable_paths",
    "test_process_lifecycle.py::test_a_tools_children_go_when_hh_is_killed",
}


# The slowest modules (pytest --durations, 2 cores), longest first, are handed out before the rest: --dist loadscope
# gives a worker a whole module, and a long one picked up last leaves the other worker idle meanwhile. `make test`
# passes --no-loadscope-reorder so that xdist keeps this order (its own orders modules by their number of tests).
# test_repro_resume and test_repro_ray share one reference run (shared_runs.two_valid_run): test_repro_ray comes
# well after test_repro_resume, so that the shared run is made by the time it asks.
SLOWEST_FIRST = ("test_benchmarks", "test_faults", "test_repro", "test_repro_resume", "test_flow", "test_bad_inputs",
                 "test_llm_endpoints_flow", "test_untrusted_rtl", "test_containment", "test_ray_lifecycle",
                 "test_unpacked_ports", "test_actions_example", "test_egraph_engine", "test_lcu_techmap",
                 "test_repro_ray", "test_moves_operators", "test_llm_flow", "test_journal_tamper", "test_moves_repeat",
                 "test_ppa", "test_wheel", "test_mult_techmap", "test_golden_gates", "test_egraph_rules",
                 "test_formal", "test_report", "test_audit")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {m: i for i, m in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.stem, len(rank)))  # stable: the rest keep their order
    for item in items:
        module = item.path.stem
        name = f"{item.path.name}::{item.originalname}"  # parametrised tests by their function's name
        if module in CHECK_MODULES or name in CHECK_TESTS:
            item.add_marker(pytest.mark.check)


@pytest.fixture(scope="session")
def flow_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/data/flow run once per session for every module that only reads it (tests/shared_runs.py)."""
    from shared_runs import flow_run as make

    return make(tmp_path_factory)
