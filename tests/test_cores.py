"""FuseSoC cores as FuseSoC reads them: a ``vlogdefine`` with no default is not defined unless the user asks
(``hh init --define NAME[=VALUE]``), so a core's optional ports (formal-verification ports behind
``ifdef``) stay out of the interface, as with FuseSoC/Edalize."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from cli_inproc import hh_in_process
from projectlib import TOP, make_project

# init's files and warnings and the gate's exit code are what is tested, not a process: every call is cli.main here
pytestmark = pytest.mark.tools

# the project's top with an optional formal port, as RISC-V cores guard their rvfi_* ports
FORMAL_TOP = TOP.replace("  output logic         parity\n",
                         "  output logic         parity\n`ifdef ACC_FORMAL\n  ,output logic [7:0] rvfi_acc\n`endif\n")
FORMAL_TOP = FORMAL_TOP.replace("  assign parity = ^acc;\n",
                                "  assign parity = ^acc;\n`ifdef ACC_FORMAL\n  assign rvfi_acc = acc;\n`endif\n")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    make_project(tmp_path)
    (tmp_path / "rtl" / "acc_top.sv").write_text(FORMAL_TOP)
    (tmp_path / "acc.core").write_text(yaml.safe_dump({
        "name": "::acc:1.0",
        "filesets": {"rtl": {"files": ["pkg/acc_pkg.sv", {"include/acc_defs.svh": {"is_include_file": True}},
                                       "rtl/sub/acc_stage.sv", "rtl/acc_top.sv"], "file_type": "systemVerilogSource"}},
        "parameters": {"HH_PROJECT_MODE": {"datatype": "int", "paramtype": "vlogdefine", "default": 1},
                       "ACC_FORMAL": {"datatype": "bool", "paramtype": "vlogdefine",
                                      "description": "formal-verification ports"},
                       "DEPTH": {"datatype": "int", "paramtype": "vlogparam", "default": 4}},
        "targets": {"default": {"filesets": ["rtl"], "parameters": ["HH_PROJECT_MODE", "ACC_FORMAL", "DEPTH"],
                                "toplevel": "acc_top"}},
    }))
    return tmp_path


def ports(root: Path) -> list[str]:
    return [p["name"] for p in yaml.safe_load((root / "design.yaml").read_text())["interface"]["ports"]]


def test_a_vlogdefine_without_default_stays_undefined(project: Path) -> None:
    res = hh_in_process("init", "--top", "acc_top", "acc.core", "--golden", "golden", cwd=project)
    assert res.returncode == 0, res.stderr
    assert "rvfi_acc" not in ports(project) and "parity" in ports(project)
    flist = (project / "acc_top.f").read_text()
    assert "+define+HH_PROJECT_MODE=1" in flist and "ACC_FORMAL" not in flist
    assert "ACC_FORMAL" not in (project / "golden" / "reference.f").read_text()
    assert "left undefined" in res.stderr and "ACC_FORMAL" in res.stderr and "--define" in res.stderr
    res = hh_in_process("gate", "design.yaml", "--only", "safety", "--only", "compile", cwd=project)
    assert res.returncode == 0, res.stdout + res.stderr


def test_define_on_the_command_line_defines_it(project: Path) -> None:
    res = hh_in_process("init", "--top", "acc_top", "acc.core", "--define", "ACC_FORMAL", "--golden", "golden",
                        cwd=project)
    assert res.returncode == 0, res.stderr
    assert ports(project)[-1] == "rvfi_acc" and "left undefined" not in res.stderr
    assert "+define+ACC_FORMAL=1" in (project / "acc_top.f").read_text()
    assert "+define+ACC_FORMAL=1" in (project / "golden" / "reference.f").read_text()
    res = hh_in_process("gate", "design.yaml", "--only", "safety", "--only", "compile", cwd=project)
    assert res.returncode == 0, res.stdout + res.stderr


def test_a_targets_own_value_defines_it(project: Path) -> None:
    core = yaml.safe_load((project / "acc.core").read_text())
    core["targets"]["default"]["parameters"] = ["HH_PROJECT_MODE", "ACC_FORMAL=true"]
    (project / "acc.core").write_text(yaml.safe_dump(core))
    res = hh_in_process("init", "--top", "acc_top", "acc.core", cwd=project)
    assert res.returncode == 0, res.stderr
    assert "rvfi_acc" in ports(project)


def test_define_reaches_a_filelist_project_too(project: Path) -> None:
    res = hh_in_process("init", "--top", "acc_top", "-f", "rtl.f", "--define", "ACC_FORMAL=1", cwd=project)
    assert res.returncode == 0, res.stderr
    assert "rvfi_acc" in ports(project)
    assert yaml.safe_load((project / "design.yaml").read_text())["sources"] == ["-f acc_top.f"]


def test_a_bad_define_is_a_usage_error(project: Path) -> None:
    res = hh_in_process("init", "--top", "acc_top", "acc.core", "--define", "ACC FORMAL", cwd=project)
    assert res.returncode == 2 and "--define ACC FORMAL" in res.stderr and "Traceback" not in res.stderr
    assert not (project / "design.yaml").exists()
