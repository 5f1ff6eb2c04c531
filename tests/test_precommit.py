"""The pre-commit hook, run by the real ``pre-commit`` on a scratch git repository.

The hook definition comes from this repository's ``.pre-commit-hooks.yaml``; it is used as a local
``language: system`` hook (the same entry, file filter and ``pass_filenames``) with the test venv's
``hh`` first on PATH, so no package index is needed. Staging one file of a multi-file design must gate
the whole design; a functional change is refused; an unrelated file does not run the gate.
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
    res = run(["hh", "init", "--top", "acc_top", "-f", "rtl.f", "-o", "design.yaml"], rtl, env)
    assert res.returncode == 0, res.stderr
    (rtl / "golden").mkdir()
    (rtl / "golden" / "notes.v").write_text("// reference notes: excluded from the hook\n")
    hook = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())[0]
    local = {**{k: hook[k] for k in ("id", "name", "entry", "files", "pass_filenames", "require_serial")},
             "language": "system", "args": ["rtl/design.yaml"], "exclude": "^rtl/golden/"}
    local["files"] = "^rtl/.*" + hook["files"]
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]}))
    (repo / "README.txt").write_text("chip\n")
    for argv in (["git", "init", "-q"], ["git", "add", "."], ["git", "commit", "-q", "--no-verify", "-m", "init"],
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

    # a functional change in the submodule alone is caught by the design's differential check
    # (the reference is the committed filelist, so point it at a frozen copy first, as a user would)
    frozen = repo / "rtl" / "golden" / "frozen"
    shutil.copytree(repo / "rtl" / "rtl", frozen / "rtl")
    shutil.copytree(repo / "rtl" / "pkg", frozen / "pkg")
    (frozen / "ref.f").write_text("+incdir+../../include\n+define+HH_PROJECT_MODE=1\nrtl/acc_top.sv\n"
                                  "rtl/sub/acc_stage.sv\npkg/acc_pkg.sv\n")
    design = repo / "rtl" / "design.yaml"
    design.write_text(design.read_text().replace("reference: rtl.f", "reference: golden/frozen/ref.f"))
    run(["git", "add", "rtl"], repo, env)
    assert run(["git", "commit", "-m", "frozen reference"], repo, env).returncode == 0
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
