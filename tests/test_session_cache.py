"""The session's own PPA cache reaches fixtures of every scope (conftest._session_cache): a module fixture's run
must not read or fill ~/.cache/hyperheurist."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def cache_seen_by_a_module_fixture() -> str | None:
    return os.environ.get("HH_CACHE_DIR")


def test_a_module_fixture_sees_the_sessions_cache(cache_seen_by_a_module_fixture: str | None,
                                                  tmp_path_factory: pytest.TempPathFactory) -> None:
    assert cache_seen_by_a_module_fixture is not None
    assert Path(cache_seen_by_a_module_fixture).is_relative_to(tmp_path_factory.getbasetemp())
    assert os.environ["HH_CACHE_DIR"] == cache_seen_by_a_module_fixture
