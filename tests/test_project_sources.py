"""Filelists, source sets, the design.yaml keys sources/include_dirs/defines, and the Candidate they make."""

from __future__ import annotations

from pathlib import Path

import pytest
from projectlib import make_project

from hyperheurist.config import load_design
from hyperheurist.errors import ConfigError, InputError
from hyperheurist.hdl.filelist import expand, parse_filelist
from hyperheurist.project.sources import candidate_from, package_order, path_candidate, reference_candidate

BASE = """name: acc
top: acc_top
spec: spec.md
interface:
  clock: clk
  ports:
    - {name: clk, dir: input, width: 1}
    - {name: rst_n, dir: input, width: 1}
    - {name: en, dir: input, width: 1}
    - {name: din, dir: input, width: 8}
    - {name: acc, dir: output, width: 8}
    - {name: parity, dir: output, width: 1}
verification:
  reference: rtl.f
"""


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    make_project(tmp_path)
    (tmp_path / "spec.md").write_text("acc\n")
    return tmp_path


def write_design(proj: Path, extra: str = "") -> Path:
    p = proj / "design.yaml"
    p.write_text(BASE + extra)
    return p


def test_filelist_incdir_define_nesting_comments_and_env(proj: Path, monkeypatch) -> None:
    monkeypatch.setenv("PROJ_ROOT", str(proj))
    (proj / "sub.f").write_text("# nested\n-f rtl.f   // again\n+define+A=2+B\n-D C=x -I $PROJ_ROOT/rtl\n"
                                "${PROJ_ROOT}/rtl/acc_top.sv\n")
    ss = parse_filelist(proj / "sub.f", env={"PROJ_ROOT"})
    assert [p.name for p in ss.files] == ["acc_top.sv", "acc_stage.sv", "acc_pkg.sv"]  # no repeats
    assert ss.include_dirs == [proj / "include", proj / "rtl"]
    assert ss.defines == {"HH_PROJECT_MODE": "1", "A": "2", "B": "", "C": "x"}


@pytest.mark.parametrize("line, words", [
    ("missing.sv", ["bad.f:2", "file not found"]),
    ("+incdir+nowhere", ["bad.f:2", "include folder not found"]),
    ("-v lib.v", ["bad.f:2", "'-v' is not supported"]),
    ("+define+A=a b", ["bad.f:2"]),
    ("+define+1X", ["bad.f:2", "define '1X': not a Verilog identifier"]),
    ("$NO_SUCH_VAR/x.v", ["bad.f:2", "$NO_SUCH_VAR is not set"]),
    ("$HOME/x.v", ["bad.f:2", "$HOME", "filelist_env"]),  # set, but not named in filelist_env
    ("-f bad.f", ["nested more than"]),
])
def test_filelist_errors_name_file_and_line(proj: Path, line: str, words: list[str]) -> None:
    (proj / "bad.f").write_text(f"rtl/acc_top.sv\n{line}\n")
    with pytest.raises(ConfigError) as exc:
        parse_filelist(proj / "bad.f", env={"NO_SUCH_VAR"})
    for w in words:
        assert w in str(exc.value)


def test_globs_folders_and_filelists_in_sources(proj: Path) -> None:
    ss = expand(["pkg/*.sv", "rtl/sub", "-f rtl.f"], proj, "sources")
    assert [p.name for p in ss.files] == ["acc_pkg.sv", "acc_stage.sv", "acc_top.sv"]
    assert proj / "include" in ss.include_dirs and ss.defines == {"HH_PROJECT_MODE": "1"}
    with pytest.raises(ConfigError, match="no file matches"):
        expand(["nothing/*.v"], proj, "sources")


def test_design_keys_and_the_candidate(proj: Path) -> None:
    d = load_design(write_design(proj, "sources: [rtl/acc_top.sv, rtl/sub/acc_stage.sv, pkg/acc_pkg.sv]\n"
                                       "include_dirs: [include]\ndefines: {HH_PROJECT_MODE: 1, WIDE: true}\n"))
    assert d.include_dirs == [proj / "include"] and d.defines == {"HH_PROJECT_MODE": "1", "WIDE": "1"}
    assert all(Path(s).is_absolute() for s in d.sources)
    ref = reference_candidate(d)
    names = [n for n, _ in ref.files]
    assert names == ["acc_pkg.sv", "acc_top.sv", "acc_stage.sv", "acc_defs.svh"]  # package first, header shipped
    assert dict(ref.defines) == {"HH_PROJECT_MODE": "1", "WIDE": "1"}  # design.yaml over the filelist
    assert ref.to_dict()["defines"] == {"HH_PROJECT_MODE": "1", "WIDE": "1"}
    # the define is part of what the candidate is
    other = load_design(write_design(proj, "defines: {HH_PROJECT_MODE: 2}\n"))
    assert reference_candidate(other).digest != ref.digest
    # a folder as reference: one design, its headers found beside or through include_dirs
    d2 = load_design(write_design(proj, "include_dirs: [include]\n").parent / "design.yaml")
    assert [n for n, _ in path_candidate(proj / "rtl" / "sub", d2, origin="seed", label="x").files] == \
        ["acc_stage.sv", "acc_defs.svh"]


@pytest.mark.parametrize("extra, words", [
    ("sources: [nope.sv]\n", ["sources", "file not found"]),
    ("include_dirs: [nope]\n", ["include_dirs", "folder not found"]),
    ("defines: {'9x': 1}\n", ["defines", "define '9x': not a Verilog identifier"]),
    ("defines: {A: 'a b'}\n", ["defines", "A="]),
    ("soruces: [x.v]\n", ["soruces: unknown key"]),
])
def test_bad_design_keys_are_one_line_config_errors(proj: Path, extra: str, words: list[str]) -> None:
    with pytest.raises(ConfigError) as exc:
        load_design(write_design(proj, extra))
    assert "\n" not in str(exc.value)
    for w in words:
        assert w in str(exc.value)


def test_a_misspelt_required_key_is_named_before_the_missing_one(proj: Path) -> None:
    p = proj / "design.yaml"
    p.write_text(BASE.replace("top: acc_top", "tpo: acc_top"))
    with pytest.raises(ConfigError) as exc:
        load_design(p)
    assert ": tpo: unknown key" in str(exc.value)


def test_reference_as_filelist_or_folder_and_seeds(proj: Path) -> None:
    d = load_design(write_design(proj, "generation: {seeds: rtl.f}\n"))
    assert d.verification.reference == proj / "rtl.f" and d.generation.seed_files() == [proj / "rtl.f"]
    (proj / "seeds" / "two").mkdir(parents=True)
    (proj / "seeds" / "one.v").write_text("module acc_top; endmodule\n")
    (proj / "seeds" / "two" / "a.sv").write_text("module acc_top; endmodule\n")
    (proj / "seeds" / "notes.txt").write_text("not a seed\n")
    d = load_design(write_design(proj, "generation: {seeds: seeds}\n"))
    assert [p.name for p in d.generation.seed_files()] == ["one.v", "two"]


def test_package_order_follows_imports_and_keeps_the_rest() -> None:
    files = [(Path("top.sv"), "module top; import b_pkg::*; endmodule"),
             (Path("b.sv"), "package b_pkg; import a_pkg::*; endpackage"),
             (Path("other.sv"), "module other; endmodule"),
             (Path("a.sv"), "// package fake;\npackage a_pkg; endpackage")]
    assert [p.name for p, _ in package_order(files)] == ["a.sv", "b.sv", "top.sv", "other.sv"]


def test_include_rules(proj: Path) -> None:
    d = load_design(write_design(proj))
    (proj / "inc.v").write_text("`define X 1\n")
    (proj / "t.sv").write_text('`include "inc.v"\nmodule acc_top; endmodule\n')
    with pytest.raises(InputError, match="name headers .vh or .svh"):
        candidate_from(expand(["t.sv"], proj, "s"), d, origin="gate", label="")
    # a path is not looked up (the safety gate judges it): nothing beyond the named file is read
    (proj / "t.sv").write_text('`include "include/acc_defs.svh"\n`include "/etc/passwd"\nmodule acc_top; endmodule\n')
    assert [n for n, _ in candidate_from(expand(["t.sv"], proj, "s"), d, origin="gate", label="").files] == ["t.sv"]
    (proj / "dup").mkdir()
    (proj / "dup" / "acc_top.sv").write_text("module x; endmodule\n")
    with pytest.raises(InputError, match="two files named acc_top.sv"):
        candidate_from(expand(["rtl/acc_top.sv", "dup/acc_top.sv"], proj, "s"), d, origin="gate", label="")


def test_messages_never_name_a_deleted_temp_folder(tmp_path: Path) -> None:
    from hyperheurist.project.messages import KEEP_HINT, scrub_temp

    tmp = tmp_path / "hh-gate-x"
    assert scrub_temp("fine (log: /kept/yosys.log)", tmp) == "fine (log: /kept/yosys.log)"
    for msg in (f"yosys rejected: x.v:3: ERROR: y (log: {tmp}/10-synth/yosys.log)",
                f"iverilog killed by SIGKILL on abc; see {tmp}/02-compile/iverilog.stderr",
                f"bad netlist {tmp}/10-synth/netlist.v, giving up"):
        out = scrub_temp(msg, tmp)
        assert str(tmp) not in out and out.endswith(f"({KEEP_HINT})"), out
    assert "netlist.v" in scrub_temp(f"bad netlist {tmp}/10-synth/netlist.v, giving up", tmp)
    assert "x.v:3: ERROR: y" in scrub_temp(f"yosys rejected: x.v:3: ERROR: y (log: {tmp}/a.log)", tmp)


def test_init_reads_unpacked_array_ports_and_refuses_two_dimensions_with_file_and_line(tmp_path: Path) -> None:
    from hyperheurist.hdl.filelist import SourceSet
    from hyperheurist.project.init import PortSpec, read_interface

    (tmp_path / "m.sv").write_text("module m (\n  input logic [7:0] data [0:7],\n  output logic [7:0] y);\n"
                                   "  assign y = data[0];\nendmodule\n")
    ports, _ = read_interface(SourceSet(files=[tmp_path / "m.sv"]), "m")
    assert ports[0] == PortSpec("data", "input", 8, False, (0, 7))
    (tmp_path / "m2.sv").write_text("module m2 (\n  input logic [7:0] data [0:7][0:1],\n  output logic [7:0] y);\n"
                                    "  assign y = data[0][0];\nendmodule\n")
    with pytest.raises(InputError, match=r"m2\.sv:2: port `data`: 2 unpacked dimensions"):
        read_interface(SourceSet(files=[tmp_path / "m2.sv"]), "m2")
    (tmp_path / "e.sv").write_text("module e (input a, output b);\n  assign b = nope;\nendmodule\n")
    with pytest.raises(InputError, match=r"e\.sv:2:\d+: error: use of undeclared identifier 'nope'"):
        read_interface(SourceSet(files=[tmp_path / "e.sv"]), "e")


def test_clock_and_reset_guesses() -> None:
    from hyperheurist.project.init import PortSpec, guess_clock_reset

    def ports(*names: str) -> list[PortSpec]:
        return [PortSpec(n, "input", 1, False) for n in names] + [PortSpec("q", "output", 4, False)]

    assert guess_clock_reset(ports("a", "b"), []) == (None, None)
    assert guess_clock_reset(ports("clk_i", "rst_ni", "en"), ["@(posedge clk_i or negedge rst_ni)"]) == \
        ("clk_i", {"name": "rst_ni", "active": "low", "sync": False})
    assert guess_clock_reset(ports("sys_clk", "reset", "en"), ["@(posedge sys_clk)"]) == \
        ("sys_clk", {"name": "reset", "active": "high", "sync": True})
    # the clock used on an edge wins over another clock-like name
    assert guess_clock_reset(ports("clk_en", "core_clk"), ["@(posedge core_clk)"])[0] == "core_clk"


def test_edam_file_gives_files_include_dirs_and_defines(proj: Path) -> None:
    import yaml

    from hyperheurist.project.cores import core_sources

    edam = proj / "acc.eda.yml"
    edam.write_text(yaml.safe_dump({
        "name": "acc", "toplevel": "acc_top",
        "files": [{"name": "pkg/acc_pkg.sv", "file_type": "systemVerilogSource"},
                  {"name": "include/acc_defs.svh", "file_type": "systemVerilogSource", "is_include_file": True},
                  {"name": "rtl/sub/acc_stage.sv", "file_type": "systemVerilogSource"},
                  {"name": "rtl/acc_top.sv", "file_type": "systemVerilogSource"},
                  {"name": "constraints.sdc", "file_type": "SDC"}],
        "parameters": {"HH_PROJECT_MODE": {"datatype": "int", "paramtype": "vlogdefine", "default": 1},
                       "DEPTH": {"datatype": "int", "paramtype": "vlogparam", "default": 4}},
    }))
    (proj / "constraints.sdc").write_text("")
    ss = core_sources(edam)
    assert [p.name for p in ss.files] == ["acc_pkg.sv", "acc_stage.sv", "acc_top.sv"]
    assert ss.include_dirs == [proj / "include"] and ss.defines == {"HH_PROJECT_MODE": "1"}
    edam.write_text(yaml.safe_dump({"files": [{"name": "gone.v", "file_type": "verilogSource"}]}))
    with pytest.raises(ConfigError, match="file not found"):
        core_sources(edam)


def test_the_designs_sources_are_the_seed_when_no_seeds_are_given(proj: Path) -> None:
    from hyperheurist.llm.providers import seed_candidates

    d = load_design(write_design(proj, "sources: [-f rtl.f]\n"))
    (seed,) = seed_candidates(d)
    assert seed.label == "sources" and seed.digest == reference_candidate(d).digest
    d = load_design(write_design(proj, "sources: [-f rtl.f]\ngeneration: {seeds: rtl/acc_top.sv}\n"))
    assert [c.label for c in seed_candidates(d)] == ["acc_top"]  # explicit seeds win
