"""A SIGKILLed hh leaves its owned temporary folder, which the next run of the same command and user removes: ``hh
ppa`` (with ``--workdir`` it makes none) and ``hh audit`` (issue 33: they used a plain ``TemporaryDirectory``, left in
/tmp for good after a SIGKILL; the gate's is tested in test_process_lifecycle.py, the invariant searches' in
test_invariant_limits.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from processes import left_behind
from test_process_lifecycle import dying_env, start

from hyperheurist.cli import cli
from hyperheurist.tempdirs import _pidns

FLOW = Path(__file__).parent / "data" / "flow"


def test_audit_removes_the_folder_a_killed_audit_left(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The next ``hh audit`` removes it on start, even one that then finds no run to audit (exit 2)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    gone = subprocess.Popen(["/bin/true"])
    gone.wait()
    stale = tmp / f"hh-audit-{_pidns()}-{gone.pid}-x"
    (stale / "inside").mkdir(parents=True)
    assert not os.path.exists(f"/proc/{gone.pid}")
    res = CliRunner().invoke(cli, ["audit", str(tmp_path / "no-run")], standalone_mode=False)
    assert not stale.exists(), "hh audit did not remove a killed one's temporary folder"
    assert list(tmp.iterdir()) == [], res.output


@pytest.mark.tools


def test_ppa_killed_leaves_a_folder_the_next_ppa_removes(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    # the third sandbox launch (probe, preprocessing, synthesis) kills hh; a private stage memo so none is skipped
    env = {**dying_env(tmp_path, 3, "after"), "TMPDIR": str(tmp), "HH_CACHE_DIR": str(tmp_path / "cache")}
    ppa = ["ppa", str(FLOW / "design.yaml"), str(FLOW / "seeds" / "ok_1_naive.v"), "--no-cache"]
    proc = start(*ppa, "--workdir", str(tmp_path / "work"), env=env)
    proc.communicate(timeout=300)
    assert proc.returncode == -signal.SIGKILL
    assert not list(tmp.glob("hh-ppa-*")), "a killed hh ppa --workdir left a temporary folder"
    proc = start(*ppa, env=env)
    proc.communicate(timeout=300)
    assert proc.returncode == -signal.SIGKILL
    assert left_behind(tmp) == []
    first = list(tmp.glob("hh-ppa-*"))
    assert len(first) == 1, first
    proc = start(*ppa, env=env)
    proc.communicate(timeout=300)
    assert proc.returncode == -signal.SIGKILL
    second = list(tmp.glob("hh-ppa-*"))
    assert not first[0].exists(), "the next hh ppa did not remove a killed one's temporary folder"
    assert len(second) == 1 and second != first, second
