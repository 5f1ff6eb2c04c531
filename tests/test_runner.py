"""The tool runner: timeouts kill the whole process group, crashes are reported, logs are kept."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from hyperheurist.errors import ToolError, ToolNotFound
from hyperheurist.runner import run_tool, safe_env, set_run_commands_file
from hyperheurist.tools import tool_path

PY = sys.executable


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purposes
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def _processes_with(marker: str) -> list[int]:
    """Host pids whose command line holds ``marker`` (pids inside the sandbox are namespace-local)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().decode(errors="replace") and _alive(int(entry.name)):
                    out.append(int(entry.name))
            except OSError:
                continue
    return out


@pytest.mark.parametrize("sandbox", ["required", "off"])
def test_hang_is_killed_with_its_children(tmp_path: Path, sandbox: str) -> None:
    marker = f"hh-grandchild-{os.getpid()}-{sandbox}"
    started = tmp_path / "started"
    script = (
        "import subprocess, sys, time\n"
        f"p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', {marker!r}])\n"
        f"open({str(started)!r}, 'w').write(str(p.pid))\n"
        "time.sleep(600)\n"
    )
    # no wall-clock bound: res.timed_out says the timeout ended it (the script sleeps 600 s, beyond pytest's timeout)
    res = run_tool([PY, "-c", script], name="hang", log_dir=tmp_path, timeout_s=1.5, sandbox=sandbox)
    assert res.timed_out and not res.ok
    assert "timed out" in res.describe()
    assert started.is_file(), "the grandchild never started: the test proves nothing"
    deadline = time.monotonic() + 5
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _processes_with(marker), "grandchild survived the timeout"


def test_crash_reports_return_code_and_keeps_logs(tmp_path: Path) -> None:
    res = run_tool([PY, "-c", "import sys; print('out-line'); print('err-line', file=sys.stderr); sys.exit(7)"],
                   name="crash", log_dir=tmp_path, timeout_s=20)
    assert res.returncode == 7 and not res.ok
    assert "exited with code 7" in res.describe()
    assert (tmp_path / "crash.stdout").read_text().strip() == "out-line"
    assert (tmp_path / "crash.stderr").read_text().strip() == "err-line"
    commands = (tmp_path / "COMMANDS").read_text()
    assert "exited with code 7" in commands and "sys.exit(7)" in commands
    with pytest.raises(ToolError, match="code 7"):
        res.check()


def test_signal_death_is_named(tmp_path: Path) -> None:
    res = run_tool([PY, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"],
                   name="segv", log_dir=tmp_path, timeout_s=20)
    assert res.signal_name == "SIGSEGV"
    assert "crashed (SIGSEGV)" in res.describe()


def test_runaway_output_is_stopped(tmp_path: Path) -> None:
    spam = [PY, "-c", "import sys\nwhile True: sys.stdout.write('x' * 65536)"]
    res = run_tool(spam, name="spam", log_dir=tmp_path, timeout_s=30, max_output=2_000_000)
    assert res.output_limited and not res.ok and not res.timed_out
    res = run_tool(spam, name="capped", log_dir=tmp_path, timeout_s=30, max_file_bytes=4_000_000)
    assert res.output_limited and "output exceeded" in res.describe()
    assert (tmp_path / "capped.stdout").stat().st_size <= 4_000_000


def test_secrets_are_not_inherited(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok")
    monkeypatch.setenv("HH_HARMLESS", "1")
    show = [PY, "-c", "import os; print(sorted(os.environ))"]
    res = run_tool(show, name="env", log_dir=tmp_path, timeout_s=20, sandbox="off")
    assert "OPENAI_API_KEY" not in res.stdout and "MY_SERVICE_TOKEN" not in res.stdout
    assert "HH_HARMLESS" in res.stdout  # off: hh's environment less its secrets
    assert "sk-test-secret" not in "".join(safe_env().values())
    # sandboxed: built from nothing, plus what the caller passes
    res = run_tool(show, name="env-box", log_dir=tmp_path, timeout_s=20, env={"TOOL_NEEDS": "x"})
    assert eval(res.stdout) == ["HOME", "LANG", "LC_ALL", "PATH", "PWD", "TMPDIR", "TOOL_NEEDS"]


def test_run_level_commands_file(tmp_path: Path) -> None:
    cmds = tmp_path / "RUN_COMMANDS"
    set_run_commands_file(cmds)
    try:
        run_tool([PY, "-c", "pass"], name="noop", log_dir=tmp_path / "stage", timeout_s=20)
    finally:
        set_run_commands_file(None)
    assert "noop: noop ok" in cmds.read_text()


def test_memory_limit_stops_allocation(tmp_path: Path) -> None:
    res = run_tool([PY, "-c", "x = bytearray(2_000_000_000)"], name="mem", log_dir=tmp_path, timeout_s=30, mem_mb=300)
    assert res.returncode != 0
    assert "MemoryError" in res.stderr


def test_timeout_is_mandatory(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        run_tool([PY, "-c", "pass"], name="x", log_dir=tmp_path, timeout_s=0)


def test_missing_tool_says_how_to_install(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HH_YOSYS", str(tmp_path / "nope"))
    with pytest.raises(ToolNotFound, match="HH_YOSYS"):
        tool_path("yosys")
    monkeypatch.delenv("HH_YOSYS")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ToolNotFound, match="apt-get install yosys"):
        tool_path("yosys")


def test_override_points_at_a_fake_tool(monkeypatch, tmp_path: Path) -> None:
    fake = tmp_path / "fake-yosys"
    fake.write_text("#!/bin/sh\necho fake-yosys \"$@\"\n")
    fake.chmod(0o755)
    monkeypatch.setenv("HH_YOSYS", str(fake))
    res = run_tool(["yosys", "-V"], name="v", log_dir=tmp_path / "logs", timeout_s=10)
    assert res.ok and res.stdout.strip() == "fake-yosys -V"


# ---- the stage runner: folders, files, verdicts, skips, reuse -------------------------------------------
def _stage_ctx(tmp_path: Path):
    from hyperheurist.candidate import Candidate
    from hyperheurist.config import load_design
    from hyperheurist.stages.context import StageContext

    data = Path(__file__).parent / "data" / "gates" / "alu"
    d = load_design(data / "design.yaml", {"limits.sandbox": "off"})
    return StageContext(cand=Candidate.from_paths([data / "good.v"], top=d.top), design=d)


class _Echo:
    """A stage whose plan runs one tool: Python printing the text of a file the plan wrote."""

    inputs: tuple[str, ...] = ()
    outputs = ("out.txt",)
    config: tuple[str, ...] = ()

    def __init__(self, stage, verdict: bool = True, files: dict[str, str] | None = None) -> None:
        self.id, self.verdict, self.files = stage, verdict, files or {"msg.txt": "hello\n"}

    def skip_reason(self, ctx) -> None:
        return None

    def plan(self, ctx):
        from hyperheurist.stages.model import Invocation, StageResult, call

        argv = (PY, "-c", "import shutil; shutil.copy('msg.txt', 'out.txt')")
        run = yield from call(Invocation("py", argv, files=self.files, outputs=("out.txt",)))
        return StageResult(self.id, self.verdict, run.outputs.get("out.txt", "").strip(), value=run.outputs)


def test_stage_runner_names_folders_and_stops_at_the_first_failure(tmp_path: Path) -> None:
    from hyperheurist.jsonio import read_json
    from hyperheurist.stages.model import StageId
    from hyperheurist.stages.runner import StageRunner

    ctx = _stage_ctx(tmp_path)
    stages = [_Echo(StageId.COMPILE), _Echo(StageId.STRUCTURE, verdict=False), _Echo(StageId.SIMULATION)]
    out = StageRunner(tmp_path / "run", ctx).run(stages)
    assert [(r.stage, r.passed, r.skipped) for r in out] == [
        (StageId.COMPILE, True, False), (StageId.STRUCTURE, False, False), (StageId.SIMULATION, True, True)]
    assert out[0].message == "hello" and out[2].message == "not run: structure failed"
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["01-compile", "02-structure"]
    assert read_json(tmp_path / "run" / "02-structure" / "result.json")["passed"] is False
    commands = (tmp_path / "run" / "01-compile" / "COMMANDS").read_text()
    assert "-c 'import shutil" in commands and str(tmp_path) not in commands.splitlines()[1].split("&&")[1]


def test_stage_runner_refuses_files_outside_the_run_folder_and_answers_from_reuse(tmp_path: Path) -> None:
    from hyperheurist.stages.model import StageId, skipped
    from hyperheurist.stages.runner import StageRunner

    ctx = _stage_ctx(tmp_path)
    with pytest.raises(ToolError, match="outside the run folder"):
        StageRunner(tmp_path / "run", ctx).run([_Echo(StageId.COMPILE, files={"../../escape.txt": "x"})])
    assert not (tmp_path / "escape.txt").exists()

    def reuse(stage, ctx):
        return skipped(stage.id, "reused") if stage.id == StageId.STRUCTURE else None

    out = StageRunner(tmp_path / "run2", ctx, reuse).run([_Echo(StageId.COMPILE), _Echo(StageId.STRUCTURE)])
    assert out[1].skipped and out[1].message == "reused"
    assert sorted(p.name for p in (tmp_path / "run2").iterdir()) == ["01-compile"]


@pytest.mark.tools
def test_a_cacheable_invocation_run_before_starts_no_process(tmp_path: Path) -> None:
    """The preprocessor on the same sources (as a candidate, then as the golden side) runs once."""
    from hyperheurist.candidate import Candidate
    from hyperheurist.config import load_design
    from hyperheurist.gating import run_gates

    data = Path(__file__).parent / "data" / "gates" / "alu"
    d = load_design(data / "design.yaml")
    text = (data / "good.v").read_text() + f"// {tmp_path.name}\n"  # sources no other test preprocessed
    cand = Candidate(files=(("good.v", text),), top=d.top)
    first = run_gates(cand, d, tmp_path / "a", reference=cand, only=["safety"])
    assert first.passed and "ivlpp" in (tmp_path / "a" / "canonical" / "COMMANDS").read_text()
    assert not (tmp_path / "a" / "golden" / "canonical" / "COMMANDS").exists()  # the same sources: answered
    second = run_gates(cand, d, tmp_path / "b", only=["safety"])
    assert second.passed and not (tmp_path / "b" / "canonical" / "COMMANDS").exists()
    assert (tmp_path / "b" / "canonical" / "canonical.v").read_text() == \
        (tmp_path / "a" / "canonical" / "canonical.v").read_text()


@pytest.mark.tools
def test_version_probe_leaves_no_folder_behind(tmp_path: Path, monkeypatch) -> None:
    """Each version probe gets a throw-away HOME; it must not outlive the probe (5,000 of them had piled up in
    /tmp, one per hh process and tool)."""
    import tempfile

    from hyperheurist import versions

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # tempfile caches the folder it chose
    versions.clear_cache()
    try:
        assert versions.tool_version("yosys").lower().startswith("yosys")
    finally:
        versions.clear_cache()
    assert not list(tmp_path.iterdir())


# ---- the sandbox's resources: processes, disk (issue 29, item 4) ---------------------------------------------

def test_a_fork_bomb_stops_at_the_process_cap(tmp_path: Path) -> None:
    """As root RLIMIT_NPROC does not apply (the kernel exempts uid 0): a shell starting 300 children once got
    all 300. The sandbox's pids cgroup refuses the fork past the cap and the tool is stopped, a limit of ours."""
    from hyperheurist.rlimits import pids_base

    if pids_base() is None:
        pytest.skip("no writable pids cgroup here: no process cap (sandbox_probe.probe says so)")
    script = "for i in $(seq 300); do sleep 20 & done; wait"
    res = run_tool(["/bin/sh", "-c", script], name="bomb", log_dir=tmp_path, timeout_s=60, max_procs=32)
    assert res.process_limited and res.limited and not res.ok, res.describe()
    assert "process limit" in res.describe()
    ok = run_tool(["/bin/sh", "-c", "for i in 1 2 3; do sleep 0.1 & done; wait"], name="few", log_dir=tmp_path,
                  timeout_s=60, max_procs=32)
    assert ok.ok and not ok.process_limited, ok.describe()


@pytest.mark.parametrize("slow", [False, True])
def test_disk_use_past_the_cap_is_a_limit_of_ours(tmp_path: Path, slow: bool) -> None:
    """Files each under the file-size cap, together past the folder's disk cap: stopped while it runs (slow) or
    caught when it ends (fast), a limit of ours (a failed gate for the candidate), not the tool's fault."""
    step = "sleep 0.3; " if slow else ""
    script = f"for i in 1 2 3 4 5 6 7 8; do head -c 1000000 /dev/urandom > f$i; {step}done"
    res = run_tool(["/bin/sh", "-c", script], name="fill", log_dir=tmp_path, timeout_s=60,
                   max_disk_bytes=3_000_000)
    assert res.disk_limited and res.limited and not res.ok, res.describe()
    assert "disk-use limit" in res.describe()
    if slow:
        assert len(list(tmp_path.glob("f*"))) < 8, "the tool was not stopped"


def test_a_huge_log_is_not_kept_whole(tmp_path: Path) -> None:
    """A tool printing 20 MB (under the output cap: not stopped) once left all of it in its stage folder; the log
    keeps what hh reads back, its last 8 MB, after a line saying what went."""
    from hyperheurist.runner import READ_BACK_LIMIT

    res = run_tool(["/bin/sh", "-c", "head -c 20000000 /dev/zero | tr '\\0' x; echo; echo the-end"], name="loud",
                   log_dir=tmp_path, timeout_s=60)
    assert res.ok, res.describe()
    kept = (tmp_path / "loud.stdout").read_bytes()
    assert len(kept) < READ_BACK_LIMIT + 200 and kept.startswith(b"[hh: the first ") and kept.endswith(b"the-end\n")
    assert res.stdout.endswith("the-end\n") and len(res.stdout) == READ_BACK_LIMIT
