"""One exit-code contract: configuration that cannot work is exit 2 at load (one line naming file and field,
no run directory, never an infrastructure fault); a tool stopped by hh's limits on a candidate is an invalid
design (exit 1) in `hh ppa` and `hh run` alike."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml
from cli_inproc import hh_in_process
from fake_tools import sleeping_on

DATA = Path(__file__).parent / "data" / "flow"
OSU018 = Path("/usr/share/qflow/tech/osu018/osu018_stdcells.lib")

@pytest.fixture
def design_dir(tmp_path: Path) -> Path:
    d = tmp_path / "design"
    shutil.copytree(DATA, d)
    return d


def with_change(d: Path, change) -> Path:
    data = yaml.safe_load((d / "design.yaml").read_text())
    change(data, d)
    p = d / "bad.yaml"
    p.write_text(yaml.safe_dump(data, sort_keys=False))
    return p


def _liberty(text: str):
    def change(data: dict, d: Path) -> None:
        (d / "cells.lib").write_text(text)
        data["ppa"]["liberty"] = "cells.lib"
    return change


CASES = {
    "tunable 1_000": (lambda data, d: data.update(tunables=[{"name": "W", "values": [8, "1_000"]}]),
                      "tunables[0].values"),
    "tunable FAST": (lambda data, d: data.update(tunables=[{"name": "MODE", "values": ["FAST"]}]),
                     "tunables[0].values"),
    "seeds /**/*.v": (lambda data, d: data["generation"].update(seeds="/**/*.v"), "generation.seeds"),
    "seeds ../**/*.v": (lambda data, d: data["generation"].update(seeds="../**/*.v"), "generation.seeds"),
    "truncated liberty": (_liberty(OSU018.read_text()[:5000]), "ppa.liberty"),
    "not a liberty": (_liberty("hello\n"), "ppa.liberty"),
    "liberty without cells": (_liberty("library (x) {\n}\n"), "ppa.liberty"),
    "activity power, no cell models": (lambda data, d: (_liberty(OSU018.read_text())(data, d),
                                                        data["ppa"].update(power="activity")), "ppa.power"),
    # before: exit 1 blaming the candidates (every gate timed out; costs overflowed to inf)
    "simulation timeout 1 ms": (lambda data, d: data["verification"].update(timeout_s=0.001),
                                "verification.timeout_s"),
    "tool timeout 1 ms": (lambda data, d: data.update(limits={"tool_timeout_s": 0.001}), "limits.tool_timeout_s"),
    "weights 1e308": (lambda data, d: data["ppa"].update(weights={"area": 1e308, "delay": 1e308}), "ppa.weights"),
    # before: exit 3 (a folder), or exit 2 after a run folder was made
    "rules_file a folder": (lambda data, d: data["generation"].update(rules_file=str(d)), "generation.rules_file"),
    "rules_file /etc/passwd": (lambda data, d: data["generation"].update(rules_file="/etc/passwd"),
                               "generation.rules_file"),
    "seeds /": (lambda data, d: data["generation"].update(seeds="/"), "generation.seeds"),
    # before: exit 1, every candidate "failed" a module that holds no test
    "cocotb a standard-library module": (lambda data, d: data["verification"].update(
        cocotb="os", test_dir=os.path.dirname(os.__file__)), "verification"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_config_that_cannot_work_is_exit_2_at_load(design_dir: Path, tmp_path: Path, case: str) -> None:
    change, field = CASES[case]
    p = with_change(design_dir, change)
    out = tmp_path / "runs"
    res = hh_in_process("run", str(p), "--out", str(out), "--quiet", "--no-report")  # cli.main: the answer is tested
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2, (case, res.stderr)
    assert len(lines) == 1 and str(p) in lines[0] and field in lines[0] and "Traceback" not in res.stderr, lines
    assert not out.exists(), "a configuration error must not leave a run directory"


def test_deep_yaml_is_exit_2(design_dir: Path, tmp_path: Path) -> None:
    for depth in (40, 5000):  # past our limit; past Python's recursion limit
        p = design_dir / f"deep{depth}.yaml"
        p.write_text((design_dir / "design.yaml").read_text() + "notes: " + "[" * depth + "]" * depth + "\n")
        for args in (("run", str(p), "--out", str(tmp_path / "runs"), "--quiet"),
                     ("gate", str(p), str(design_dir / "seeds" / "ok_1_naive.v"))):
            res = hh_in_process(*args)  # cli.main: the answer is tested (past the recursion limit in any process)
            lines = res.stderr.strip().splitlines()
            assert res.returncode == 2 and len(lines) == 1 and "nested too deeply" in lines[0], (depth, res.stderr)
    assert not (tmp_path / "runs").exists()


@pytest.mark.tools
def test_yosys_stopped_by_our_time_limit_is_exit_1_in_ppa_and_run(design_dir: Path, tmp_path: Path) -> None:
    """Synthesis that outlives limits.tool_timeout_s is the candidate's fault (exit 1), not "fix the tool"."""
    slow = sleeping_on(tmp_path, "yosys", "*synth.ys*")
    p = with_change(design_dir, lambda data, d: data.update(limits={"tool_timeout_s": 3}))
    env = {"HH_YOSYS": str(slow), "HH_CACHE_DIR": str(tmp_path / "cache")}
    res = hh_in_process("ppa", str(p), str(design_dir / "seeds" / "ok_1_naive.v"), env=env)  # the slow tool: its own
    assert res.returncode == 1, res.stderr
    res = hh_in_process("run", str(p), "--out", str(tmp_path / "runs"), "--quiet", "--no-report", env=env)
    assert res.returncode == 1, res.stderr
    assert "no candidate passed every gate" in res.stderr and "synthesis" in res.stderr, res.stderr


def _rename_key(path: tuple[str | int, ...], new: str):
    def change(data: dict, d: Path) -> None:
        node = data
        for k in path[:-1]:
            node = node[k]
        node[new] = node.pop(str(path[-1]))
    return change


@pytest.mark.parametrize(("path", "new", "named"), [
    (("interface",), "interfce", "interfce: unknown key"),  # a required section: its "missing" must not come first
    (("verification",), "verificaton", "verificaton: unknown key"),
    (("interface", "ports", 0, "width"), "widht", "interface.ports[0].widht: unknown key"),
    (("verification", "differential", "cycles"), "cylces", "verification.differential.cylces: unknown key"),
])
def test_misspelt_key_is_named_before_what_it_leaves_missing(design_dir: Path, path: tuple[str | int, ...],
                                                             new: str, named: str) -> None:
    p = with_change(design_dir, _rename_key(path, new))
    for args in (("gate", str(p), str(design_dir / "seeds" / "ok_1_naive.v")), ("ppa", str(p))):
        res = hh_in_process(*args)  # cli.main in this process: the answer is what is tested
        lines = res.stderr.strip().splitlines()
        assert res.returncode == 2 and len(lines) == 1, (args, res.stderr)
        assert f"{p}: {named}" in lines[0] and "missing" not in lines[0], lines
