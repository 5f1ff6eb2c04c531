"""The pre-commit hook, run by the real ``pre-commit`` on a scratch git repository.

The hook definition comes from this repository's ``.pre-commit-hooks.yaml``; it is used as a local
``language: system`` hook (the same entry, file filter and ``pass_filenames``) with the test venv's
``hh`` first on PATH, so no package index is needed. Staging one file of a multi-file design must gate
the whole design; a functional change is refused (the reference is the golden copy ``hh init --golden``
froze, with the exclusion it wrote); an unrelated or excluded file does not run the gate.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from projectlib import make_project

REPO = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.tools, pytest.mark.slow]
pytest.importorskip("pre_commit")


def run(argv: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL)


@pytest.fixture
def scratch(tmp_path: Path) -> tuple[Path, dict]:
    repo = tmp_path / "chip"
    rtl = repo / "rtl"
    rtl.mkdir(parents=True)
    make_project(rtl)
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(tmp_path),
           "PRE_COMMIT_HOME": str(tmp_path / "pc-cache"), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com", "LANG": "C.UTF-8",
           "HH_CACHE_DIR": os.environ.get("HH_CACHE_DIR", str(tmp_path / "hh-cache"))}
    assert shutil.which("hh", path=env["PATH"]), "the test venv's hh"
    assert run(["git", "init", "-q"], repo, env).returncode == 0
    # the reference is a golden copy of today's sources; init writes the hook entry that excludes it
    res = run(["hh", "init", "--top", "acc_top", "-f", "rtl.f", "-o", "design.yaml", "--golden", "golden"], rtl, env)
    assert res.returncode == 0, res.stderr
    entry = yaml.safe_load((rtl / "pre-commit-hh.yaml").read_text())[0]
    assert entry["args"] == ["rtl/design.yaml"] and entry["exclude"] == "^rtl/golden/", entry
    (rtl / "golden" / "notes.v").write_text("// reference notes: excluded from the hook\n")
    hook = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())[0]
    local = {**{k: hook[k] for k in ("id", "name", "entry", "files", "pass_filenames", "require_serial")},
             "language": "system", "args": entry["args"], "exclude": entry["exclude"]}
    local["files"] = entry["files"] + ".*" + hook["files"]
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]}))
    (repo / "README.txt").write_text("chip\n")
    for argv in (["git", "add", "."], ["git", "commit", "-q", "--no-verify", "-m", "init"],
                 [sys.executable, "-m", "pre_commit", "install"]):
        res = run(argv, repo, env)
        assert res.returncode == 0, res.stdout + res.stderr
    return repo, env


def _head(repo: Path, env: dict) -> str:
    return run(["git", "rev-parse", "HEAD"], repo, env).stdout.strip()


def test_staging_one_file_gates_the_whole_design(scratch: tuple[Path, dict]) -> None:
    repo, env = scratch
    sub = repo / "rtl" / "rtl" / "sub" / "acc_stage.sv"
    sub.write_text(sub.read_text() + "// a comment: still the same design\n")
    run(["git", "add", str(sub)], repo, env)
    before = _head(repo, env)
    res = run(["git", "commit", "-m", "comment"], repo, env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "hh gate (whole design)" in res.stdout + res.stderr and "Passed" in res.stdout + res.stderr
    assert _head(repo, env) != before

    # a functional change in the submodule alone is caught by the design's differential check against
    # the golden copy hh init froze
    sub.write_text(sub.read_text().replace("q <= acc_pkg::mix(q, d);", "q <= q + d;"))
    run(["git", "add", str(sub)], repo, env)
    before = _head(repo, env)
    res = run(["git", "commit", "-m", "break it"], repo, env)
    # pre-commit exits 1 when a hook fails; hh gate's own exit 1 (INVALID) names the gate
    assert res.returncode == 1 and "simulation gate" in res.stdout + res.stderr, res.stdout + res.stderr
    assert _head(repo, env) == before


def test_unrelated_and_excluded_files_do_not_run_the_gate(scratch: tuple[Path, dict]) -> None:
    repo, env = scratch
    (repo / "README.txt").write_text("chip, v2\n")
    (repo / "rtl" / "golden" / "notes.v").write_text("// changed notes\n")
    run(["git", "add", "README.txt", "rtl/golden/notes.v"], repo, env)
    res = run(["git", "commit", "-m", "docs"], repo, env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "(no files to check)Skipped" in (res.stdout + res.stderr).replace(".", "")
