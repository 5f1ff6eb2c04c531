"""Benchmarks part A (adder32, mult8_pipe, div16, mac16): configs load, seeds follow the conventions.

Fast checks only; the full gate verdict per seed is checked across all benchmarks elsewhere.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from seednames import kind_by_header, kind_by_name

from hyperheurist.config import DesignConfig, load_design
from hyperheurist.runner import run_tool

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
NAMES = ("adder32", "mult8_pipe", "div16", "mac16", "fir4")
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _design(name: str) -> DesignConfig:
    return load_design(BENCH / name / "design.yaml")


def _code(path: Path) -> str:
    """Source text without comments (the SEED line mentions words like 'latch')."""
    return COMMENT.sub(" ", path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", NAMES)
def test_design_yaml_loads(name: str) -> None:
    d = _design(name)
    assert d.name == name and d.top == name
    assert d.spec == (BENCH / name / "spec.md").resolve()
    assert d.verification.cocotb == f"test_{name}"
    assert d.verification.reference == (BENCH / name / "reference.v").resolve()
    assert d.verification.differential.enabled and d.verification.differential.cycles == 400
    assert d.generation.provider == "offline" and d.generation.candidates == 8
    assert (d.anneal.iterations, d.anneal.seed, d.anneal.chains) == (40, 1, 2)
    assert d.ppa.liberty == "osu018" and 0 < d.ppa.clock_period_ns < 20
    if d.interface.sequential:
        assert d.interface.clock == "clk"
        assert d.interface.reset is not None and d.interface.reset.name == "rst_n"
        assert d.interface.reset.active == "low" and not d.interface.reset.sync


@pytest.mark.parametrize("name", NAMES)
def test_seed_headers_match_file_names(name: str) -> None:
    seeds = _design(name).generation.seed_files()
    labels = {}
    for s in seeds:
        header = kind_by_header(s)
        assert header, f"{s.name}: first line must be '// SEED: valid|faulty - <what>'"
        assert header[0] == kind_by_name(s), f"{s.name}: header says {header[0]}, the name {kind_by_name(s)}"
        labels[s.name] = header[0]
    names = sorted(labels)
    assert names == [s.name for s in seeds], "seed_files() must be in sorted file-name order"
    valid = [n for n in names if labels[n] == "valid"]
    assert valid[0] == "ok_1_naive.v", "the first valid seed (single-pass baseline) must be the naive one"
    assert any(n.startswith("ok_2_") for n in valid)
    assert sum(labels[n] == "faulty" for n in names) >= 2


@pytest.mark.parametrize("name", NAMES)
def test_sources_declare_top_without_sim_constructs(name: str) -> None:
    d = _design(name)
    for f in [d.verification.reference, *d.generation.seed_files()]:
        code = _code(f)
        assert re.findall(r"\bmodule\s+(\w+)", code) == [d.top], f"{f.name}: must define exactly module {d.top}"
        assert not re.search(r"\binitial\b", code), f"{f.name}: initial block"
        plain = code.replace("$signed(", "").replace("$unsigned(", "")
        assert not re.search(r"\$\w+\s*\(", plain), f"{f.name}: system task"
        assert not re.search(r"#\s*\d", code), f"{f.name}: delay"
        for port in d.interface.all_ports():
            assert re.search(rf"\b{port.dir}\b[^;,)]*\b{port.name}\b", code), \
                f"{f.name}: port {port.name} not declared as {port.dir}"


@pytest.mark.parametrize("name", NAMES)
def test_tunables_are_parameters_of_a_valid_seed(name: str) -> None:
    d = _design(name)
    valid = [s for s in d.generation.seed_files() if s.name.startswith("ok_")]
    for t in d.tunables:
        assert any(re.search(rf"\bparameter\s+{t.name}\b", _code(s)) for s in valid), f"{t.name}: no valid seed has it"


@pytest.mark.tools
@pytest.mark.parametrize("name", NAMES)
def test_every_source_compiles_with_icarus(name: str, tmp_path: Path) -> None:
    """Faulty seeds too: their flaws are behavioural or structural, never syntax errors."""
    d = _design(name)
    for f in [d.verification.reference, *d.generation.seed_files()]:
        res = run_tool(["iverilog", "-g2012", "-s", d.top, "-o", str(tmp_path / f"{f.stem}.vvp"), str(f)],
                       name=f"iverilog-{f.stem}", log_dir=tmp_path, timeout_s=30, readable=[f.parent])
        assert res.ok, f"{f.name}: {res.describe()}: {res.tail(5)}"
