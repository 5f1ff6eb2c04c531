"""The package installed from a wheel (not editable, as pip and pre-commit install it) works outside the repo.

The wheel is built from this checkout and installed without dependencies into a fresh venv in a temp
folder; the heavy dependencies (pyslang, cocotb, ...) come from the test venv's site-packages
through a path-only ``.pth`` line, which adds the folder but runs none of its ``.pth`` files, so the
editable install of this checkout stays invisible. A benchmark copied elsewhere then goes through
``hh gate``, ``hh ppa`` and ``hh run`` with the repository nowhere on the path.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from shared_runs import wheel as shared_wheel

from hyperheurist.gates import GATES

REPO = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.slow, pytest.mark.tools]


def _run(argv: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "LANG": "C.UTF-8"}
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv with the wheel installed; returns its bin folder."""
    base = tmp_path_factory.mktemp("wheel")
    wheel = shared_wheel(tmp_path_factory)
    venv = base / "venv"
    res = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    py = venv / "bin" / "python"
    res = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "-q", str(wheel)],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    purelib = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    (purelib / "zz_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv / "bin"


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("elsewhere") / "adder32"
    shutil.copytree(REPO / "benchmarks" / "adder32", dest, ignore=shutil.ignore_patterns("results.xml", "__pycache__"))
    return dest


def test_wheel_carries_its_data_and_not_the_checkout(installed: Path, bench: Path) -> None:
    code = ("import hyperheurist, hyperheurist.config as c, hyperheurist.llm.prompts as p;"
            "print(hyperheurist.__file__); print(sorted(f.stem for f in c.FLOWS_DIR.glob('*.yaml')));"
            "print(sorted(f.stem for f in p.PROMPTS_DIR.glob('*.md')))")
    res = _run([str(installed / "python"), "-c", code], bench.parent)
    assert res.returncode == 0, res.stderr
    where, flows, prompts = res.stdout.splitlines()
    assert Path(where).is_relative_to(installed.parent), where
    assert not Path(where).is_relative_to(REPO)
    assert {"default", "area", "timing"} <= set(eval(flows))
    assert {"generate", "repair", "mutate", "system"} <= set(eval(prompts))


def test_installed_hh_gates_scores_and_runs_a_copied_benchmark(installed: Path, bench: Path) -> None:
    hh = str(installed / "hh")
    res = _run([hh, "gate", "design.yaml", "seeds/ok_1_naive.v", "--junit", "gate.xml"], bench)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "PASS  simulation" in res.stdout
    suite = ET.parse(bench / "gate.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "0" and suite.get("errors") == "0"
    gates = [c.get("name") for c in suite.iter("testcase") if c.get("classname", "").startswith("hh.gate.")]
    assert gates == list(GATES)  # one case per gate, in order (cocotb's tests are cases of their own)
    res = _run([hh, "gate", "design.yaml", "seeds/bad_carry_index.v"], bench)
    assert res.returncode == 1, res.stdout + res.stderr

    res = _run([hh, "ppa", "design.yaml", "seeds/ok_1_naive.v", "--json", "--workdir", "ppa-work"], bench)
    assert res.returncode == 0, res.stderr
    m = json.loads(res.stdout)
    assert m["area_um2"] > 0 and m["cells"] > 0
    stages = [json.loads(p.read_text()) for p in sorted((bench / "ppa-work").glob("*/result.json"))]
    assert stages and all(r["passed"] for r in stages), stages
    synth = [r["details"] for r in stages if "area_um2" in r["details"]]  # the stage folders hold what was printed
    assert [(d["area_um2"], d["cells"]) for d in synth] == [(m["area_um2"], m["cells"])], stages

    # no finishing descents (anneal.polish, 3 by default: ~90% of such a run's evaluations): a complete run is the point
    res = _run([hh, "run", "design.yaml", "--iterations", "2", "--set", "anneal.polish=0", "--out", "runs", "--quiet",
                "--jobs", "1"], bench)
    assert res.returncode == 0, res.stdout + res.stderr
    summary = next((bench / "runs").glob("adder32/*/summary.json"))
    data = json.loads(summary.read_text())
    assert data["status"] == "complete" and data["best"]["area_um2"] > 0
    best = json.loads((summary.parent / "best" / "ppa.json").read_text())  # best/ is the summary's best
    assert best["candidate"]["digest"] == data["best"]["digest"] and best["cost"] == data["best"]["cost"]
    assert best["metrics"]["area_um2"] == data["best"]["area_um2"]
