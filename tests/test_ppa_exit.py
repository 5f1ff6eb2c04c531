"""hh ppa's exit codes: the design's faults are exit 1, configuration that cannot work is exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ADDER = REPO / "benchmarks" / "adder32"

pytestmark = pytest.mark.tools


def hh_ppa(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hyperheurist", "ppa", *args], capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)


def test_a_latch_the_liberty_cannot_map_is_an_invalid_design() -> None:
    res = hh_ppa(str(ADDER / "design.yaml"), str(ADDER / "seeds" / "bad_latch.v"), "--no-cache")
    assert res.returncode == 1, res.stderr
    assert "latch" in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_a_malformed_liberty_is_a_configuration_error(tmp_path: Path) -> None:
    lib = tmp_path / "broken.lib"
    lib.write_text("library (broken) {\n  cell (INVX1) {\n")
    res = hh_ppa(str(ADDER / "design.yaml"), str(ADDER / "reference.v"), "--set", f"ppa.liberty={lib}")
    assert res.returncode == 2, res.stderr
    assert "ppa.liberty" in res.stderr and "Traceback" not in res.stderr
