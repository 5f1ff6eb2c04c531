"""The one input-path rule (hyperheurist.inputs.input_problem) for the paths test_input_paths.py left out:
include folders (design.yaml's include_dirs, a filelist's +incdir+, and the headers found in them), ppa.liberty,
ppa.flow, and the spec/reference/data_files fields: no /proc, /sys, /dev, no link leaving its folder; exit 2 with
one line naming the field, no run folder, nothing read.

Before (issue 29): `include_dirs: [/proc/self]` was accepted (only is_dir() was checked; a candidate's
`include "environ"` was then read into the candidate), `ppa.liberty` linked to /etc/shadow was opened and parsed
("no library group") and `ppa.liberty: /proc/self/environ` read, `ppa.flow: /proc/self/environ` accepted."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from cli_inproc import hh_in_process

from hyperheurist.config import load_design
from hyperheurist.errors import ConfigError, InputError
from hyperheurist.project.sources import load_candidate

DATA = Path(__file__).parent / "data" / "flow"
OSU018 = Path("/usr/share/qflow/tech/osu018/osu018_stdcells.lib")
KERNEL = "kernel or device file"
OUTSIDE = "outside the design folder"


@pytest.fixture
def design_dir(tmp_path: Path) -> Path:
    d = tmp_path / "design"
    shutil.copytree(DATA, d)
    return d


@pytest.fixture
def private(tmp_path: Path) -> Path:
    """A private folder outside the design folder, with a private file in it."""
    p = tmp_path / "private"
    p.mkdir()
    (p / "notes.vh").write_text("// private\n")
    (p / "notes.lib").write_text(OSU018.read_text())  # a real liberty: refused for where it is, not what it holds
    (p / "notes.vh").chmod(0o600)
    return p


def _set(key: str, value: object):
    def change(data: dict, d: Path, private: Path) -> None:
        node = data
        *parents, last = key.split(".")
        for k in parents:
            node = node.setdefault(k, {})
        node[last] = value(d, private) if callable(value) else value
    return change


def _link(name: str, target: str | None, key: str, value: object):
    """A link ``name`` in the design folder to ``target`` (None: the private folder), then ``key: value``."""
    def change(data: dict, d: Path, private: Path) -> None:
        (d / name).symlink_to(private if target is None else Path(target.replace("PRIVATE", str(private))))
        _set(key, value)(data, d, private)
    return change


# case -> (change, the field the one line names, what it says)
CASES = {
    "include_dirs /proc/self": (_set("include_dirs", ["/proc/self"]), "include_dirs", KERNEL),
    "include_dirs /sys": (_set("include_dirs", "/sys"), "include_dirs", KERNEL),
    "include_dirs /dev": (_set("include_dirs", ["/dev"]), "include_dirs", KERNEL),
    "include_dirs a link to /proc/self": (_link("inc", "/proc/self", "include_dirs", ["inc"]), "include_dirs",
                                          KERNEL),
    "include_dirs a link out of the folder": (_link("inc", None, "include_dirs", ["inc"]), "include_dirs", OUTSIDE),
    "ppa.liberty a link to /etc/shadow": (_link("lib.lib", "/etc/shadow", "ppa.liberty", "lib.lib"), "ppa.liberty",
                                          OUTSIDE),
    "ppa.liberty a link to a liberty elsewhere": (_link("lib.lib", "PRIVATE/notes.lib", "ppa.liberty", "lib.lib"),
                                                  "ppa.liberty", OUTSIDE),
    "ppa.liberty /proc/self/environ": (_set("ppa.liberty", "/proc/self/environ"), "ppa.liberty", KERNEL),
    "ppa.flow /proc": (_set("ppa.flow", "/proc"), "ppa.flow", "flow preset not found"),
    "ppa.flow /proc/self/environ": (_set("ppa.flow", "/proc/self/environ"), "ppa.flow", KERNEL),
    "spec /proc/self/environ": (_set("spec", "/proc/self/environ"), "spec", KERNEL),
    "reference /proc/self/environ": (_set("verification.reference", "/proc/self/environ"), "verification.reference",
                                     KERNEL),
    "data_files /proc/self/environ": (_set("verification.data_files", {"d.hex": "/proc/self/environ"}),
                                      "verification.data_files", KERNEL),
}


@pytest.mark.parametrize("case", list(CASES))
def test_an_input_path_outside_the_rule_is_exit_2_naming_the_field(design_dir: Path, private: Path,
                                                                    tmp_path: Path, case: str) -> None:
    change, field, why = CASES[case]
    data = yaml.safe_load((design_dir / "design.yaml").read_text())
    change(data, design_dir, private)
    p = design_dir / "bad.yaml"
    p.write_text(yaml.safe_dump(data, sort_keys=False))
    out = tmp_path / "runs"
    for args in (("run", str(p), "--out", str(out), "--quiet", "--no-report"),
                 ("ppa", str(p), str(design_dir / "seeds" / "ok_1_naive.v"), "--workdir", str(tmp_path / "wd"))):
        res = hh_in_process(*args)
        lines = res.stderr.strip().splitlines()
        assert res.returncode == 2, (case, args[0], res.stderr)
        assert len(lines) == 1 and f"{p}: {field}" in lines[0] and why in lines[0], (case, lines)
        assert "Traceback" not in res.stderr and "library group" not in res.stderr, res.stderr  # never parsed
    assert not out.exists() and not (tmp_path / "wd").exists(), "a configuration error must not leave a folder"


def test_the_same_paths_inside_the_rule_still_load(design_dir: Path) -> None:
    (design_dir / "inc").mkdir()
    (design_dir / "inc" / "w.vh").write_text("`define W 8\n")
    (design_dir / "cells.lib").symlink_to(OSU018)  # a link to a file named by its own path elsewhere: refused
    (design_dir / "sub").mkdir()
    (design_dir / "sub" / "cells.lib").write_text(OSU018.read_text())
    (design_dir / "inc_link").symlink_to(design_dir / "inc")  # a link that stays inside the folder
    cfg = load_design(design_dir / "design.yaml", {"include_dirs": ["inc", "inc_link", str(OSU018.parent)],
                                                   "ppa.liberty": "sub/cells.lib"})
    assert cfg.include_dirs == [design_dir / "inc", design_dir / "inc", OSU018.parent]
    assert cfg.ppa.liberty_path == design_dir / "sub" / "cells.lib"
    cfg = load_design(design_dir / "design.yaml", {"ppa.liberty": str(OSU018)})  # named by its own path: allowed
    assert cfg.ppa.liberty_path == OSU018
    with pytest.raises(ConfigError, match=f"ppa.liberty: .*{OUTSIDE}"):
        load_design(design_dir / "design.yaml", {"ppa.liberty": "cells.lib"})


def test_a_filelist_incdir_is_under_the_rule(design_dir: Path, private: Path) -> None:
    cfg = load_design(design_dir / "design.yaml")
    (design_dir / "inc").symlink_to(private)
    for incdir in ("/proc/self", "/sys/kernel", "inc"):
        (design_dir / "rtl.f").write_text(f"+incdir+{incdir}\nseeds/ok_1_naive.v\n")
        with pytest.raises(ConfigError, match=KERNEL if incdir.startswith("/") else OUTSIDE):
            load_candidate(cfg, (), (str(design_dir / "rtl.f"),), origin="test")


def test_a_header_linked_out_of_its_folder_is_not_read(design_dir: Path, private: Path) -> None:
    """`include "notes.vh"` found in an include folder where notes.vh is a link to a private file elsewhere."""
    (design_dir / "inc").mkdir()
    (design_dir / "inc" / "notes.vh").symlink_to(private / "notes.vh")
    rtl = design_dir / "uses.v"
    rtl.write_text('`include "notes.vh"\n' + (DATA / "seeds" / "ok_1_naive.v").read_text())
    cfg = load_design(design_dir / "design.yaml", {"include_dirs": ["inc"]})
    with pytest.raises(InputError, match=OUTSIDE):
        load_candidate(cfg, (str(rtl),), (), origin="test")
    (design_dir / "inc" / "notes.vh").unlink()
    (design_dir / "inc" / "notes.vh").write_text("// mine\n")
    cand = load_candidate(cfg, (str(rtl),), (), origin="test")
    assert dict(cand.files)["notes.vh"] == "// mine\n"
