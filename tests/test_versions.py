"""Tool version probes are ordinary tool runs (``runner.run_tool``): logged, timed out, without secrets (issue 31)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperheurist import runner, versions


@pytest.fixture(autouse=True)
def _fresh_probes():
    versions.clear_cache()
    yield
    versions.clear_cache()


def _fake_tool(tmp_path: Path, body: str) -> Path:
    exe = tmp_path / "fake-yosys"
    exe.write_text("#!/bin/sh\n" + body + "\n")
    exe.chmod(0o755)
    return exe


def test_a_version_probe_is_a_logged_tool_run_without_secrets(tmp_path: Path, monkeypatch) -> None:
    exe = _fake_tool(tmp_path, 'echo "Yosys 9.9 key=${OPENAI_API_KEY:-none}"')
    monkeypatch.setenv("HH_YOSYS", str(exe))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    commands = tmp_path / "RUN_COMMANDS"
    runner.set_run_commands_file(commands)
    try:
        got = versions.tool_versions(("yosys",))
    finally:
        runner.set_run_commands_file(None)
    assert got["yosys"] == {"path": str(exe.resolve()), "version": "Yosys 9.9 key=none"}
    assert "# yosys-version: yosys-version ok" in commands.read_text()  # through run_tool's log
    assert versions.version_key(("yosys",)) == "yosys=Yosys 9.9 key=none"


def test_a_hanging_version_probe_is_stopped_at_its_timeout(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HH_YOSYS", str(_fake_tool(tmp_path, "sleep 60")))
    monkeypatch.setattr(versions, "PROBE_TIMEOUT_S", 1.0)
    assert versions.tool_version("yosys") == "unknown (TimeoutExpired)"


def test_a_missing_tool_is_named_not_probed(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HH_STA", str(tmp_path / "nowhere"))
    got = versions.tool_versions(("sta",))["sta"]
    assert got["version"] == "" and "HH_STA" in got["error"]


def test_the_git_revision_is_read_through_the_runner(tmp_path: Path) -> None:
    commands = tmp_path / "RUN_COMMANDS"
    runner.set_run_commands_file(commands)
    try:
        rev = versions.git_revision(tmp_path)  # not a checkout: git fails, no revision
    finally:
        runner.set_run_commands_file(None)
    assert rev is None and "rev-parse HEAD" in commands.read_text()
