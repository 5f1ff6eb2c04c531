"""`hh run` goes on past candidates too deep to analyse (issue 29): three seeds that are each a 120,000-term sum
(tests/test_crash_verdicts.py's `hh gate` case) are invalid seeds with file:line, the good seed is valid and the
search goes on (exit 0), with no infrastructure fault counted.

Before 5ef0fe7 each such seed was a RecursionError in hh's own process (exit 3, "internal error"); this test is
the search-level half of that fix (the `hh gate` verdict is test_crash_verdicts.py's)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FLOW = Path(__file__).parent / "data" / "flow"
HH = [sys.executable, "-m", "hyperheurist"]
HEAD = "module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);\n"


@pytest.mark.tools
@pytest.mark.slow
def test_hh_run_goes_on_past_seeds_too_deep_to_analyse(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    for i, operand in enumerate("abc"):
        (seeds / f"deep_{i}.v").write_text(HEAD + f"assign y = {' + '.join([operand] * 120_000)};\nendmodule\n")
    shutil.copy(FLOW / "seeds" / "ok_1_naive.v", seeds / "zz_good.v")
    out = tmp_path / "runs"
    # one annealing step shows the search goes on; no polish (its greedy finish evaluated some 20 neighbours
    # more: the run took 65 s with it, 9 s without, at load 8)
    res = subprocess.run([*HH, "run", str(FLOW / "design.yaml"), "--out", str(out), "--quiet", "--no-report",
                          "--jobs", "1", "--set", f"generation.seeds={seeds}/*.v", "--set", "anneal.iterations=1",
                          "--set", "anneal.chains=1", "--set", "anneal.polish=0"], capture_output=True, text=True,
                         timeout=1800,
                         stdin=subprocess.DEVNULL, check=False,
                         env={**os.environ, "HH_CACHE_DIR": str(tmp_path / "cache")})
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stdout[-3000:] + res.stderr[-3000:]
    summary = json.loads((next(out.glob("*/*")) / "summary.json").read_text())
    entries = {e["label"]: e for e in summary["phase1"]["entries"]}
    assert entries["zz_good"]["verdict"] == "valid", entries["zz_good"]
    for i in range(3):
        e = entries[f"deep_{i}"]
        assert e["verdict"] == "invalid" and f"deep_{i}.v:2: the design nests more than" in e["message"], e
    assert not (summary.get("infrastructure_faults") or {}).get("count"), summary.get("infrastructure_faults")
