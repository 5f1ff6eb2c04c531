"""Bring your own project: a multi-file design (package, submodule in another file, include folder,
a define it cannot compile without, a filelist) through hh init, gate, ppa, run and audit."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from cli_inproc import hh_in_process
from projectlib import make_project

pytestmark = pytest.mark.tools


def hh(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """cli.main in this process: the files init writes and what gate, ppa, run and audit answer are the point."""
    return hh_in_process(*args, cwd=cwd)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    make_project(tmp_path)
    return tmp_path


@pytest.mark.slow
def test_multi_file_project_through_init_gate_ppa_run_audit(project: Path) -> None:
    res = hh("init", "--top", "acc_top", "-f", "rtl.f", "-o", "design.yaml", "--golden", "golden", cwd=project)
    assert res.returncode == 0, res.stderr
    data = yaml.safe_load((project / "design.yaml").read_text())
    assert data["verification"]["reference"] == "golden/reference.f"  # a copy, never the design's own files
    ports = {p["name"]: p for p in data["interface"]["ports"]}
    assert ports["din"]["width"] == 8 and ports["acc"]["dir"] == "output" and ports["parity"]["width"] == 1
    assert data["interface"]["clock"] == "clk"
    assert data["interface"]["reset"] == {"name": "rst_n", "active": "low", "sync": False}
    assert "REVIEW" in (project / "design.yaml").read_text() and (project / "spec.md").is_file()

    # the written file passes the gate on its own sources (no files on the command line); equivalence is on
    res = hh("gate", "design.yaml", "--junit", "gate.xml", "--json", cwd=project)
    assert res.returncode == 0, res.stdout + res.stderr
    verdict = json.loads(res.stdout)
    assert verdict["defines"] == {"HH_PROJECT_MODE": "1"}
    # the package first although the filelist lists it last; the header travels with the design
    assert verdict["files"][0] == "acc_pkg.sv" and "acc_defs.svh" in verdict["files"]
    assert {r["gate"]: r["passed"] and not r["skipped"] for r in verdict["results"]}["equivalence"]

    # the same files given explicitly, with -f, and a changed file that breaks it
    res = hh("gate", "design.yaml", "-f", "rtl.f", cwd=project)
    assert res.returncode == 0, res.stdout + res.stderr
    # a changed submodule (its own folder, the rest shared) differs from the reference: exit 1
    (project / "mine").mkdir()
    sub = (project / "rtl" / "sub" / "acc_stage.sv").read_text()
    (project / "mine" / "acc_stage.sv").write_text(sub.replace("q <= acc_pkg::mix(q, d);", "q <= q + d;"))
    (project / "mine.f").write_text("+incdir+include\n+define+HH_PROJECT_MODE\nrtl/acc_top.sv\nmine/acc_stage.sv\n"
                                    "pkg/acc_pkg.sv\n")
    res = hh("gate", "design.yaml", "-f", "mine.f", cwd=project)
    assert res.returncode == 1 and "simulation gate" in res.stderr, res.stdout + res.stderr
    broken = project / "broken.f"
    broken.write_text("+incdir+include\nrtl/acc_top.sv\nrtl/sub/acc_stage.sv\npkg/acc_pkg.sv\n")  # no define
    res = hh("gate", "design.yaml", "-f", "broken.f", cwd=project)
    assert res.returncode == 1 and "acc_top.sv:" in res.stderr, res.stderr

    res = hh("ppa", "design.yaml", "--json", "--workdir", "ppa-work", cwd=project)
    assert res.returncode == 0, res.stderr
    m = json.loads(res.stdout)
    assert m["area_um2"] > 0 and m["cells"] > 8  # eight flops at least
    assert m["librelane"]["design__instance__area"] == {"value": m["area_um2"], "direction": "minimize"}
    assert m["librelane"]["timing__setup__ws"]["direction"] == "maximize"
    assert m["librelane"]["power__total"]["value"] == pytest.approx(m["power_mw"] / 1000)
    # the user's files, under their own names, are what the PPA stage folder starts from
    assert sorted(p.name for p in (project / "ppa-work" / "src").iterdir()) == \
        ["acc_defs.svh", "acc_pkg.sv", "acc_stage.sv", "acc_top.sv"]

    # one finishing round per descent (3 by default): still accepted designs for hh audit
    res = hh("run", "design.yaml", "--iterations", "2", "--set", "anneal.polish=1", "--out", "runs", "--quiet",
             "--jobs", "1", cwd=project)
    assert res.returncode == 0, res.stdout + res.stderr
    run = next((project / "runs" / "acc_top").iterdir())
    summary = json.loads((run / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["best"]["area_um2"] > 0
    flat = json.loads((run / "metrics.json").read_text())
    assert flat["design__instance__area"] == summary["best"]["area_um2"]
    assert flat["design__instance__count"] == summary["best"]["cells"]
    assert flat["timing__setup__ws"] == summary["best"]["slack_ns"] and flat["timing__setup__wns"] == 0.0
    assert summary["metrics"]["best"] == flat and set(summary["metrics"]["directions"]) >= set(flat)
    res = hh("audit", str(run), cwd=project)
    assert res.returncode == 0, res.stdout + res.stderr
    audited = re.search(r"hh audit: (\d+) of (\d+) accepted designs pass every gate", res.stderr)
    assert audited and audited[1] == audited[2] and int(audited[2]) >= 1, res.stderr  # some were audited


def test_init_refuses_unknown_top_and_existing_file(project: Path) -> None:
    res = hh("init", "--top", "nope", "-f", "rtl.f", cwd=project)
    assert res.returncode == 2 and "top module 'nope' not found" in res.stderr and "acc_top" in res.stderr
    assert not (project / "design.yaml").exists()
    assert hh("init", "--top", "acc_top", "-f", "rtl.f", cwd=project).returncode == 0
    res = hh("init", "--top", "acc_top", "-f", "rtl.f", cwd=project)
    assert res.returncode == 2 and "already exists" in res.stderr


def test_init_from_plain_files_writes_a_filelist(project: Path) -> None:
    """Files instead of a filelist: hh init writes one (with the include folder and define it was told of
    through a filelist on the line too), used as sources and seed; the golden copy keeps both."""
    (project / "extra.f").write_text("+incdir+include\n+define+HH_PROJECT_MODE\n")
    res = hh("init", "--top", "acc_top", "rtl/acc_top.sv", "rtl/sub/acc_stage.sv", "pkg/acc_pkg.sv", "extra.f",
             "-o", "design.yaml", "--golden", "golden", cwd=project)
    assert res.returncode == 0, res.stderr
    flist = (project / "acc_top.f").read_text()
    assert "+incdir+include" in flist and "+define+HH_PROJECT_MODE" in flist and "rtl/acc_top.sv" in flist
    data = yaml.safe_load((project / "design.yaml").read_text())
    assert data["verification"]["reference"] == "golden/reference.f" and data["sources"] == ["-f acc_top.f"]
    golden = (project / "golden" / "reference.f").read_text()
    assert "+incdir+include" in golden and "+define+HH_PROJECT_MODE" in golden
    res = hh("gate", "design.yaml", cwd=project)
    assert res.returncode == 0, res.stdout + res.stderr


def test_init_outside_the_sources_writes_paths_relative_to_the_design_yaml(tmp_path: Path) -> None:
    """`-o` in another folder: the filelist and sources name the RTL relative to the design.yaml (`../src/`),
    never by absolute path, so the project can be committed and moved as a whole."""
    src = tmp_path / "src"
    make_project(src)
    (src / "inc.f").write_text("+incdir+include\n")
    res = hh("init", "--top", "acc_top", "rtl/acc_top.sv", "rtl/sub/acc_stage.sv", "pkg/acc_pkg.sv", "inc.f",
             "--define", "HH_PROJECT_MODE", "-o", "../build/design.yaml", "--golden", "../build/golden", cwd=src)
    assert res.returncode == 0, res.stderr
    flist = (tmp_path / "build" / "acc_top.f").read_text()
    assert "../src/rtl/acc_top.sv" in flist and str(tmp_path) not in flist
    res = hh("init", "--top", "acc_top", "-f", "rtl.f", "-o", "../list/design.yaml", "--golden", "../list/g",
             cwd=src)
    assert res.returncode == 0, res.stderr
    assert yaml.safe_load((tmp_path / "list" / "design.yaml").read_text())["sources"] == ["-f ../src/rtl.f"]
    moved = tmp_path.parent / f"{tmp_path.name}-moved"
    tmp_path.rename(moved)  # the whole tree moved: both still gate from their own folder
    for folder in ("build", "list"):
        res = hh("gate", "design.yaml", "--only", "safety", "--only", "compile", cwd=moved / folder)
        assert res.returncode == 0, res.stdout + res.stderr


def test_init_reads_a_fusesoc_core(project: Path) -> None:
    (project / "acc.core").write_text(yaml.safe_dump({
        "name": "::acc:1.0",
        "filesets": {"rtl": {"files": ["pkg/acc_pkg.sv", {"include/acc_defs.svh": {"is_include_file": True}},
                                       "rtl/sub/acc_stage.sv", "rtl/acc_top.sv"], "file_type": "systemVerilogSource"}},
        "parameters": {"HH_PROJECT_MODE": {"datatype": "int", "paramtype": "vlogdefine", "default": 1}},
        "targets": {"default": {"filesets": ["rtl"], "parameters": ["HH_PROJECT_MODE"], "toplevel": "acc_top"}},
    }))
    res = hh("init", "--top", "acc_top", "acc.core", "--golden", "golden", cwd=project)
    assert res.returncode == 0, res.stderr
    assert "+define+HH_PROJECT_MODE=1" in (project / "acc_top.f").read_text()
    assert hh("gate", "design.yaml", "--only", "safety", "--only", "compile", cwd=project).returncode == 0
