"""Shared fixtures. Tests that need real tools are marked `tools`; CI installs them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests explore a fixed set of examples (derived from each test's name), so CI is not at the
# mercy of the random draw; a newly found counterexample is a local `--hypothesis-seed` run away.
settings.register_profile("hh", derandomize=True, database=None)
settings.load_profile("hh")

REPO = Path(__file__).resolve().parent.parent
BENCHMARKS = REPO / "benchmarks"


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Each test session uses its own PPA cache, so results never leak from a developer's machine."""
    ours = str(tmp_path_factory.getbasetemp())
    if "HH_CACHE_DIR" not in os.environ or not os.environ["HH_CACHE_DIR"].startswith(ours):
        monkeypatch.setenv("HH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "hh-cache"))


@pytest.fixture
def repo() -> Path:
    return REPO
