"""Benchmarks part B (fifo8, crc32, traffic_fsm, fir4): design.yaml loads, seeds follow the conventions,
and (with the real tools) every reference passes its own cocotb test while a simulation-caught faulty
seed fails it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from seednames import kind_by_header, kind_by_name

from hyperheurist.config import DesignConfig, load_design
from hyperheurist.sim.cocotb_run import run_cocotb

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
NAMES = ("fifo8", "crc32", "traffic_fsm", "fir4")
# one faulty seed per benchmark that only simulation can catch: the cocotb test must reject it
SIM_CAUGHT = {"fifo8": "bad_full_off_by_one.v", "crc32": "bad_init_priority.v",
              "traffic_fsm": "bad_ped_not_latched.v", "fir4": "bad_shift_on_idle.v"}
FORBIDDEN = re.compile(r"\binitial\b|#\s*\d|\$[a-z]")


def _design(name: str) -> DesignConfig:
    return load_design(BENCHMARKS / name / "design.yaml")


def _module_ports(text: str, top: str) -> list[tuple[str, str, int]]:
    """(direction, name, width) of ANSI port declarations in ``module top``'s header."""
    m = re.search(rf"\bmodule\s+{top}\b(.*?)\);", text, re.S)
    assert m, f"module {top} not found"
    header = re.sub(r"//[^\n]*", "", m.group(1))
    header = re.sub(r"^\s*#\s*\([^()]*\)", "", header)  # drop a parameter list
    ports = []
    for decl in re.finditer(r"\b(input|output)\s+(?:wire|reg)?\s*(?:signed\s*)?(\[(\d+):(\d+)\])?\s*(\w+)", header):
        width = int(decl.group(3)) - int(decl.group(4)) + 1 if decl.group(2) else 1
        ports.append((decl.group(1), decl.group(5), width))
    return ports


@pytest.mark.parametrize("name", NAMES)
def test_design_yaml_loads(name: str) -> None:
    d = _design(name)
    assert d.name == name and d.top == name
    assert d.verification.cocotb == f"test_{name}"
    assert d.verification.reference is not None and d.verification.reference.name == "reference.v"
    assert d.generation.provider == "offline" and d.generation.seeds
    assert d.interface.reset is not None and d.interface.clock == "clk"
    assert d.spec.name == "spec.md" and len(d.spec_text()) > 800


@pytest.mark.parametrize("name", NAMES)
def test_seeds_follow_the_conventions(name: str) -> None:
    d = _design(name)
    seeds = d.generation.seed_files()
    names = [p.name for p in seeds]
    assert any(n.startswith("ok_1_") for n in names), "no ok_1_ naive baseline"
    assert any(n.startswith("ok_2_") for n in names), "no ok_2_ alternative architecture"
    assert sum(n.startswith("bad_") for n in names) >= 2, "fewer than two faulty seeds"
    for p in seeds:
        header = kind_by_header(p)
        assert header, f"{p.name}: first line is not a SEED header"
        assert header[0] == kind_by_name(p), f"{p.name}: header says {header[0]}, the name {kind_by_name(p)}"


@pytest.mark.parametrize("name", NAMES)
def test_interface_matches_reference_and_valid_seeds(name: str) -> None:
    d = _design(name)
    want = sorted((p.dir, p.name, p.width) for p in d.interface.all_ports())
    files = [d.verification.reference] + [p for p in d.generation.seed_files() if p.name.startswith("ok_")]
    for f in files:
        text = f.read_text()
        body = re.sub(r"//[^\n]*", "", text)
        assert not FORBIDDEN.search(body), f"{f.name}: initial block, delay or system task"
        assert sorted(_module_ports(text, d.top)) == want, f"{f.name}: ports differ from design.yaml"


@pytest.mark.parametrize("name", NAMES)
def test_tunables_exist_as_parameters(name: str) -> None:
    d = _design(name)
    texts = [p.read_text() for p in d.generation.seed_files() if p.name.startswith("ok_")]
    for t in d.tunables:
        assert any(re.search(rf"\bparameter\s+(integer\s+)?{t.name}\b", x) for x in texts), t.name


@pytest.mark.tools
@pytest.mark.parametrize("name", NAMES)
def test_reference_passes_and_sim_bug_fails(name: str, tmp_path: Path) -> None:
    d = _design(name)
    assert d.verification.cocotb and d.verification.reference
    common = dict(toplevel=d.top, test_module=d.verification.cocotb, test_dir=d.verification.test_dir, timeout_s=60)
    good = run_cocotb(sources=[d.verification.reference], build_dir=tmp_path / "ref", **common)
    assert good.passed, good.message
    bad = run_cocotb(sources=[d.base_dir / "seeds" / SIM_CAUGHT[name]], build_dir=tmp_path / "bad", **common)
    assert not bad.passed and bad.kind == "failed", bad.message
