"""Every bundled benchmark's files: design.yaml loads with the shared settings, the seeds follow the naming and
header conventions, the reference and seeds declare the interface without simulation constructs, tunables are
parameters of a valid seed; with the real tools a seed only simulation catches fails the benchmark's own cocotb test.
(Once two files, test_benchmarks_a/_b, each checking half the benchmarks its own way.) The full gate verdict per
file is test_benchmarks.py's, and with it two checks this file made again before: every source compiles with Icarus
(the compile gate, which every file reaches and passes, runs Icarus -g2012 -s <top> and then Verilator on the text
the safety gate reads from the file) and each reference passes its cocotb test (the simulation gate runs it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from seednames import kind_by_header, kind_by_name

from hyperheurist.config import DesignConfig, load_design
from hyperheurist.sim.cocotb_run import run_cocotb

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
NAMES = sorted(p.parent.name for p in BENCH.glob("*/design.yaml"))
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
# one faulty seed per benchmark that only simulation can catch: the cocotb test must reject it
SIM_CAUGHT = {"fifo8": "bad_full_off_by_one.v", "crc32": "bad_init_priority.v",
              "traffic_fsm": "bad_ped_not_latched.v", "fir4": "bad_shift_on_idle.v"}


def _design(name: str) -> DesignConfig:
    return load_design(BENCH / name / "design.yaml")


def _code(path: Path) -> str:
    """Source text without comments (the SEED line mentions words like 'latch')."""
    return COMMENT.sub(" ", path.read_text(encoding="utf-8"))


def _module_ports(code: str, top: str) -> list[tuple[str, str, int]]:
    """(direction, name, width) of the ANSI port declarations in ``module top``'s header."""
    m = re.search(rf"\bmodule\s+{top}\b(.*?)\);", code, re.S)
    assert m, f"module {top} not found"
    header = re.sub(r"^\s*#\s*\([^()]*\)", "", m.group(1))  # drop a parameter list
    ports = []
    for decl in re.finditer(r"\b(input|output)\s+(?:wire|reg)?\s*(?:signed\s*)?(\[(\d+):(\d+)\])?\s*(\w+)", header):
        width = int(decl.group(3)) - int(decl.group(4)) + 1 if decl.group(2) else 1
        ports.append((decl.group(1), decl.group(5), width))
    return ports


@pytest.mark.parametrize("name", NAMES)
def test_design_yaml_loads(name: str) -> None:
    d = _design(name)
    assert d.name == name and d.top == name
    assert d.spec == (BENCH / name / "spec.md").resolve() and len(d.spec_text()) > 800
    assert d.verification.cocotb == f"test_{name}"
    assert d.verification.reference == (BENCH / name / "reference.v").resolve()
    assert d.verification.differential.enabled and d.verification.differential.cycles == 400
    assert d.generation.provider == "offline" and d.generation.seeds and d.generation.candidates == 8
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
    assert any(n.startswith("ok_2_") for n in valid), "no ok_2_ alternative architecture"
    assert sum(labels[n] == "faulty" for n in names) >= 2, "fewer than two faulty seeds"


@pytest.mark.parametrize("name", NAMES)
def test_sources_declare_top_without_sim_constructs(name: str) -> None:
    """Every source (faulty seeds too) defines exactly the top module, declares each port with its direction and
    has no initial block, delay or system task; the reference and the valid seeds declare exactly the ports of
    design.yaml, with their widths."""
    d = _design(name)
    want = sorted((p.dir, p.name, p.width) for p in d.interface.all_ports())
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
        if f == d.verification.reference or f.name.startswith("ok_"):
            assert sorted(_module_ports(code, d.top)) == want, f"{f.name}: ports differ from design.yaml"


@pytest.mark.parametrize("name", NAMES)
def test_tunables_are_parameters_of_a_valid_seed(name: str) -> None:
    d = _design(name)
    valid = [s for s in d.generation.seed_files() if s.name.startswith("ok_")]
    for t in d.tunables:
        assert any(re.search(rf"\bparameter\s+(integer\s+)?{t.name}\b", _code(s)) for s in valid), \
            f"{t.name}: no valid seed has it"


@pytest.mark.tools
@pytest.mark.parametrize("name", sorted(SIM_CAUGHT))
def test_sim_bug_fails_the_cocotb_test(name: str, tmp_path: Path) -> None:
    """The cocotb test alone (the simulation gate runs the differential check first, which refutes these seeds
    before their cocotb test runs); that the reference passes it is test_benchmarks' (its simulation gate)."""
    d = _design(name)
    assert d.verification.cocotb and d.verification.reference
    bad = run_cocotb(sources=[d.base_dir / "seeds" / SIM_CAUGHT[name]], build_dir=tmp_path / "bad", toplevel=d.top,
                     test_module=d.verification.cocotb, test_dir=d.verification.test_dir, timeout_s=60)
    assert not bad.passed and bad.kind == "failed", bad.message
