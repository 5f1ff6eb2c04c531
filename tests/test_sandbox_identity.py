"""Who a sandboxed tool is on the host (issue 29, item 4): as root, hh starts tools as an unprivileged id.

bwrap run by root made no user namespace, so tools were kuid 0 with their capabilities dropped: the files they
made were root's, and RLIMIT_NPROC (which exempts root) could not cap them where no pids cgroup exists. Real
bwrap; skipped when hh is not root (then bwrap's user namespace maps the tool to hh's own id, as before).
"""

from __future__ import annotations

import os
import stat
import subprocess
import threading
import time
from pathlib import Path

import pytest

from hyperheurist import rlimits
from hyperheurist.errors import ConfigError
from hyperheurist.rlimits import StartGate
from hyperheurist.rlimits import rlimits as rlimits_for
from hyperheurist.runner import ToolResult, run_tool
from hyperheurist.sandbox import BASE_PATH, Sandbox, tool_env
from hyperheurist.sandbox_user import DEFAULT_ID, identity

pytestmark = [pytest.mark.tools, pytest.mark.skipif(os.geteuid() != 0, reason="hh is not root: nothing to drop")]


def _status(text: str, field: str) -> list[int]:
    line = next(x for x in text.splitlines() if x.startswith(field + ":"))
    return [int(v, 16) if field.startswith("Cap") else int(v) for v in line.split()[1:]]


def test_the_tool_is_an_unprivileged_id_with_nothing_kept(tmp_path: Path) -> None:
    """Every uid and gid of the tool is the sandbox's id, it has no supplementary group and no capability in any
    set (the bounding set too), and no_new_privs is set."""
    res = run_tool(["/bin/cat", "/proc/self/status"], name="status", log_dir=tmp_path, timeout_s=30)
    assert res.ok, res.describe()
    assert identity() == (DEFAULT_ID, DEFAULT_ID)
    assert _status(res.stdout, "Uid") == [DEFAULT_ID] * 4 and _status(res.stdout, "Gid") == [DEFAULT_ID] * 4
    assert _status(res.stdout, "Groups") == []
    for caps in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert _status(res.stdout, caps) == [0], caps
    assert _status(res.stdout, "NoNewPrivs") == [1]


def test_a_file_the_tool_makes_is_the_ids_on_the_host_while_it_runs(tmp_path: Path) -> None:
    """Seen from the host while the tool runs: its file is owned by the unprivileged id (a user namespace with
    --uid alone would show 0 here). Once it has ended, hh's id owns the folder and all in it again."""
    script = "touch made; while [ ! -e go ]; do sleep 0.05; done"
    box: list[ToolResult] = []
    t = threading.Thread(target=lambda: box.append(run_tool(["/bin/sh", "-c", script], name="maker",
                                                            log_dir=tmp_path, timeout_s=60)))
    t.start()
    try:
        deadline = time.monotonic() + 50
        while not (tmp_path / "made").exists() and t.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        st = os.lstat(tmp_path / "made")
        assert (st.st_uid, st.st_gid) == (DEFAULT_ID, DEFAULT_ID)
        assert os.lstat(tmp_path).st_uid == DEFAULT_ID
    finally:
        (tmp_path / "go").write_text("")
        t.join(60)
    assert box and box[0].ok, box and box[0].describe()
    for p in (tmp_path, tmp_path / "made", tmp_path / "go", tmp_path / "maker.stdout"):
        assert os.lstat(p).st_uid == os.geteuid(), p


def _sandboxed(stage: Path, writable: tuple[Path, ...], readable: tuple[Path, ...], command: list[str]) -> int:
    """``command`` in hh's sandbox through its start gate, ``stage`` open to anyone, the other writable folders
    left as they are (a writable mount of root's files); its exit code."""
    gate = StartGate()
    stage.chmod(0o777)
    argv = gate.command(Sandbox(writable=(stage, *writable), readable=readable).wrap(command, tool_env(), stage))
    try:
        proc = subprocess.Popen(argv, env={"PATH": BASE_PATH}, stdin=subprocess.DEVNULL, start_new_session=True,
                                pass_fds=gate.fds())
        gate.open(rlimits_for(None, None, 1 << 20), time.monotonic() + 30)
    finally:
        gate.close()
    return proc.wait(timeout=30)


@pytest.mark.parametrize("mount", ["--ro-bind", "--bind"])
def test_a_root_file_cannot_be_written(tmp_path: Path, mount: str) -> None:
    """A root-owned 0644 file in a folder bound read-only, or bound writable (as a stage folder is): the tool can
    neither change it, nor change its mode, nor add a file beside it. As kuid 0 without capabilities it could
    write through the writable mount (it owned the file)."""
    folder = tmp_path / "root-owned"
    folder.mkdir()
    victim = folder / "root.txt"
    victim.write_text("root's\n")
    victim.chmod(0o644)
    stage = tmp_path / "stage"
    stage.mkdir()
    script = (f"cat {victim} > copy; (echo changed >> {victim}) 2>/dev/null && echo wrote; "
              f"chmod 666 {victim} 2>/dev/null && echo chmod; touch {folder}/new 2>/dev/null && echo new; true")
    writable, readable = ((folder,), ()) if mount == "--bind" else ((), (folder,))
    rc = _sandboxed(stage, writable, readable, ["/bin/sh", "-c", f"{script} > report"])
    assert rc == 0 and (stage / "copy").read_text() == "root's\n", "the tool did not run: the test proves nothing"
    assert (stage / "report").read_text() == ""
    assert victim.read_text() == "root's\n" and stat.S_IMODE(victim.stat().st_mode) == 0o644
    assert not (folder / "new").exists()


def test_a_private_run_folder_is_passable_and_an_unreadable_input_is_named(tmp_path: Path) -> None:
    """hh's own temporary folders are 0700: the sandbox's group gets the search bit on the way to the stage
    folder inside one (bwrap used to make mount points 0700 too). An input file the id cannot read is a
    configuration error naming it, not a failed gate."""
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    (run / "design.v").write_text("module m; endmodule\n")
    stage = run / "compile"
    stage.mkdir(mode=0o700)
    res = run_tool(["/bin/sh", "-c", f"cat {run}/design.v > copy.v"], name="cp", log_dir=stage, timeout_s=30,
                   readable=[run])
    assert res.ok and (stage / "copy.v").read_text() == "module m; endmodule\n", res.describe() + res.stderr
    secret = tmp_path / "secret.v"
    secret.write_text("module s; endmodule\n")
    secret.chmod(0o600)
    with pytest.raises(ConfigError, match="secret.v cannot be read by the sandbox's user"):
        run_tool(["/bin/true"], name="t", log_dir=stage, timeout_s=30, readable=[secret])


@pytest.mark.parametrize("text", ["0", "root", "-5"])
def test_a_bad_sandbox_id_is_a_config_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setenv("HH_SANDBOX_UID", text)
    with pytest.raises(ConfigError, match="HH_SANDBOX_UID"):
        run_tool(["/bin/true"], name="t", log_dir=tmp_path, timeout_s=30)


def test_the_id_is_configurable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HH_SANDBOX_UID", "4242")
    monkeypatch.setenv("HH_SANDBOX_GID", "4343")
    res = run_tool(["/bin/sh", "-c", "id -u; id -g; touch f; stat -c '%u %g' f"], name="id", log_dir=tmp_path,
                   timeout_s=30)
    assert res.ok and res.stdout.split() == ["4242", "4343", "4242", "4343"], res.describe() + res.stderr


def test_without_a_pids_cgroup_rlimit_nproc_caps_the_tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no pids cgroup can be made (cgroup v2 without delegation), RLIMIT_NPROC is the process cap: it
    binds now that the tool is not root. A 300-child fork bomb is stopped, a limit of ours (a failed gate)."""
    monkeypatch.setattr(rlimits, "_launchers", {os.getpid(): None})  # as where pids_base() finds none
    monkeypatch.setenv("HH_SANDBOX_UID", "4244")  # an id no other process runs as: the count is the tool's own
    script = "for i in $(seq 300); do sleep 20 & done; wait"
    res = run_tool(["/bin/sh", "-c", script], name="bomb", log_dir=tmp_path, timeout_s=60, max_procs=32)
    assert res.process_limited and res.limited and not res.ok, res.describe() + res.stderr
    assert "process limit" in res.describe()
    assert "--nproc=32:32" in (tmp_path / "bomb.sandbox").read_text()
    ok = run_tool(["/bin/sh", "-c", "for i in 1 2 3; do sleep 0.1 & done; wait"], name="few", log_dir=tmp_path,
                  timeout_s=60, max_procs=32)
    assert ok.ok and not ok.process_limited, ok.describe()
