"""`make check` runs what tests/conftest.py lists: every name there must be a test that exists, or the fast tier
would silently lose a trust-critical test."""

from __future__ import annotations

from pathlib import Path

from conftest import CHECK_MODULES, CHECK_TESTS, SLOWEST_FIRST

TESTS = Path(__file__).parent


def test_every_module_and_test_of_the_fast_tier_exists() -> None:
    missing = sorted(m for m in CHECK_MODULES if not (TESTS / f"{m}.py").is_file())
    assert not missing, f"make check names modules that do not exist: {missing}"
    for node in CHECK_TESTS:
        file, name = node.split("::")
        text = (TESTS / file).read_text(encoding="utf-8")
        assert f"def {name}(" in text, f"make check names a test that does not exist: {node}"


def test_every_module_handed_out_first_exists() -> None:
    """A renamed slow module would silently fall back to collection order (and could again be the last one run)."""
    missing = sorted(m for m in SLOWEST_FIRST if not (TESTS / f"{m}.py").is_file())
    assert not missing, f"conftest.py's SLOWEST_FIRST names modules that do not exist: {missing}"
