"""A synthesizer that crashes on one design is that design's failed gate (exit 1); one that crashes on the
known-good design too (the reference, else a canary) is a broken tool (exit 3). Before: any Yosys crash was
exit 3, and in ``hh run`` three hostile candidates in a row stopped the search as "repeated tool faults"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_inproc import hh_in_process

DATA = Path(__file__).parent / "data" / "flow"
POISON = """module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);
  wire [11:0] crashme_sum = a * 12'd10 + b;
  assign y = crashme_sum + c + d;
endmodule
"""


def fake_yosys(tmp: Path, always: bool) -> Path:
    """A yosys that dies on SIGSEGV when a design it reads names ``crashme`` (or always), else is the real one."""
    from hyperheurist.tools import tool_path

    script = tmp / "yosys"
    test = "true" if always else "grep -qs crashme $(grep -o '[^ \"]*[.]v' \"$s\")"
    script.write_text(f"""#!/bin/sh
s=""
prev=""
for a in "$@"; do [ "$prev" = "-s" ] && s="$a"; prev="$a"; done
if [ -n "$s" ] && {test}; then kill -SEGV $$; fi
exec {tool_path("yosys")} "$@"
""")
    script.chmod(0o755)
    return script


def poisoned(tmp: Path, always: bool) -> tuple[str, str, dict[str, str | None]]:
    """A copy of the flow design, the poison candidate beside it, and the environment naming the fake Yosys.
    Every ``hh`` here is cli.main in this process: the exit code and the blame in its message are what is tested."""
    d = tmp / "design"
    shutil.copytree(DATA, d, dirs_exist_ok=True)
    (d / "poison.v").write_text(POISON)
    env: dict[str, str | None] = {"HH_YOSYS": str(fake_yosys(tmp, always)), "HH_CACHE_DIR": str(tmp / "cache")}
    return str(d / "design.yaml"), str(d / "poison.v"), env


@pytest.mark.tools
def test_a_yosys_crash_on_one_design_only_fails_its_synthesis_gate(tmp_path: Path) -> None:
    design, poison, env = poisoned(tmp_path, always=False)
    res = hh_in_process("gate", design, poison, "--only", "synthesis", env=env)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "yosys crashed (SIGSEGV): crashed on this design only (the reference passes the same script)" \
        in res.stdout, res.stdout
    assert "Traceback" not in res.stderr


@pytest.mark.tools
def test_a_yosys_that_crashes_on_the_reference_too_is_a_tool_fault(tmp_path: Path) -> None:
    design, poison, env = poisoned(tmp_path, always=True)
    res = hh_in_process("gate", design, poison, "--only", "synthesis", env=env)
    assert res.returncode == 3, res.stdout + res.stderr
    assert "on the reference too: the tool is broken, not the design" in res.stderr, res.stderr


@pytest.mark.tools
@pytest.mark.parametrize("always, code, words", [
    (False, 1, "yosys crashed (SIGSEGV): crashed on this design only (the canary design passes the same script)"),
    (True, 3, "on the canary design too: the tool is broken"),
])
def test_the_ppa_synthesis_blames_by_the_canary(tmp_path: Path, always: bool, code: int, words: str) -> None:
    """``hh ppa`` has no reference in its stages: the canary decides."""
    design, poison, env = poisoned(tmp_path, always=always)
    res = hh_in_process("ppa", design, poison, "--no-cache", env=env)
    assert res.returncode == code, res.stdout + res.stderr
    assert words in res.stdout + res.stderr, res.stdout + res.stderr
    assert "Traceback" not in res.stderr
