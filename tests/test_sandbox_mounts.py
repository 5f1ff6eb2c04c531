"""The sandbox's /etc (a private copy of the listed files, one read-only bind) and /dev (three devices)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from hyperheurist.errors import ConfigError
from hyperheurist.runner import run_tool
from hyperheurist.sandbox import DEVICES, ETC, ETC_FILES, EtcCopy, Sandbox, SandboxUnavailable, runtime_root, tool_env

NAMES = ("passwd", "group", "ld.so.conf.d", "localtime", "linked", "absent")


def fake_etc(tmp_path: Path) -> Path:
    """An /etc with a secret beside the listed entries, a folder holding a link, a link to a file the
    sandbox shows anyway (/usr) and a link to one it does not."""
    src = tmp_path / "etc"
    (src / "ld.so.conf.d").mkdir(parents=True)
    (src / "passwd").write_text("root:x:0:0::/root:/bin/sh\n")
    (src / "group").write_text("root:x:0:\n")
    (src / "shadow").write_text("root:secret\n")
    (src / "shadow").chmod(0o600)
    (src / "ld.so.conf.d" / "libc.conf").write_text("/usr/local/lib\n")
    (src / "ld.so.conf.d" / "alias.conf").symlink_to("libc.conf")
    (src / "localtime").symlink_to("/usr/share/zoneinfo/Etc/UTC")
    outside = tmp_path / "elsewhere.conf"
    outside.write_text("linked content\n")
    (src / "linked").symlink_to(outside)
    return src


def test_the_copy_holds_only_the_listed_entries(tmp_path: Path) -> None:
    root = tmp_path / "rt"
    root.mkdir(mode=0o700)
    folder = EtcCopy(fake_etc(tmp_path), NAMES, root).folder()
    assert folder.parent == root and folder.name.startswith("etc-")
    assert sorted(os.listdir(folder)) == ["group", "ld.so.conf.d", "linked", "localtime", "passwd"]  # no shadow
    assert os.readlink(folder / "localtime") == "/usr/share/zoneinfo/Etc/UTC"  # visible in the sandbox: kept
    assert not (folder / "linked").is_symlink() and (folder / "linked").read_text() == "linked content\n"
    assert os.readlink(folder / "ld.so.conf.d" / "alias.conf") == "libc.conf"
    assert (folder / "passwd").read_text() == "root:x:0:0::/root:/bin/sh\n"
    assert [p.name for p in root.iterdir()] == [folder.name]  # no temporary folder left behind


def test_a_changed_entry_is_picked_up_and_equal_contents_share_a_folder(tmp_path: Path) -> None:
    src, root = fake_etc(tmp_path), tmp_path / "rt"
    root.mkdir(mode=0o700)
    copy = EtcCopy(src, NAMES, root)
    first = copy.folder()
    assert copy.folder() == first
    (src / "passwd").write_text("root:x:0:0::/root:/bin/sh\nhh:x:1000:1000::/home/hh:/bin/sh\n")
    second = copy.folder()
    assert second != first and "hh:x:1000" in (second / "passwd").read_text()
    (src / "ld.so.conf.d" / "extra.conf").write_text("/opt/lib\n")  # an entry added to a listed folder
    third = copy.folder()
    assert third not in (first, second) and (third / "ld.so.conf.d" / "extra.conf").is_file()
    # another process with the same /etc loses the rename and uses the same folder
    assert EtcCopy(src, NAMES, root).folder() == third
    assert not [p for p in root.iterdir() if p.name.startswith(".etc-")]


def test_a_broken_folder_under_the_digest_name_is_not_used(tmp_path: Path) -> None:
    """A folder missing a listed entry (a tmp cleaner ate it) is passed over: this process keeps its own copy."""
    src = fake_etc(tmp_path)
    (tmp_path / "a").mkdir(mode=0o700)
    (tmp_path / "b").mkdir(mode=0o700)
    name = EtcCopy(src, NAMES, tmp_path / "a").folder().name
    broken = tmp_path / "b" / name
    broken.mkdir()
    (broken / "passwd").write_text("root:x:0:0::/root:/bin/sh\n")
    got = EtcCopy(src, NAMES, tmp_path / "b").folder()
    assert got != broken and sorted(os.listdir(got)) == sorted(os.listdir(tmp_path / "a" / name))
    assert EtcCopy(src, NAMES, tmp_path / "a").folder() == tmp_path / "a" / name  # a whole one is reused


@pytest.mark.parametrize("mode", [0o777, 0o750])
def test_a_runtime_folder_others_can_enter_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      mode: int) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    (tmp_path / "hyperheurist").mkdir()
    (tmp_path / "hyperheurist").chmod(mode)
    with pytest.raises(SandboxUnavailable, match="only it can enter"):
        runtime_root()
    (tmp_path / "hyperheurist").chmod(0o700)
    assert runtime_root() == tmp_path / "hyperheurist"


def test_the_real_copy_is_private_on_the_host() -> None:
    folder = ETC.folder()
    st = os.lstat(folder.parent)
    assert st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) == 0o700
    assert not (folder / "shadow").exists()


def test_etc_inputs_other_than_the_listed_files_are_refused(tmp_path: Path) -> None:
    sb = Sandbox(writable=(tmp_path,), readable=(Path("/etc/ssh"),))
    with pytest.raises(ConfigError, match="sandbox's /etc holds only"):
        sb.wrap(["true"], tool_env(), tmp_path)
    argv = Sandbox(writable=(tmp_path,), readable=(Path("/etc/alternatives"),)).wrap(["true"], tool_env(), tmp_path)
    assert "/etc/alternatives" not in argv  # visible through the copy already


INSIDE = """
ls -A /etc | tr '\\n' ' '; echo
ls -A /dev | tr '\\n' ' '; echo
echo x > /etc/passwd 2>/dev/null && echo WROTE-PASSWD
touch /etc/new 2>/dev/null && echo MADE-FILE
test -e /etc/shadow && echo SHADOW
head -c 16 /dev/urandom | wc -c
head -c 16 /dev/zero | wc -c
"""


@pytest.mark.tools
def test_inside_the_sandbox_etc_is_the_copy_and_dev_three_devices(tmp_path: Path) -> None:
    res = run_tool(["/bin/sh", "-c", INSIDE], name="probe", log_dir=tmp_path, timeout_s=60)
    assert res.ok, res.stderr
    etc, dev, *rest = res.stdout.splitlines()
    listed = sorted(n for n in ETC_FILES if os.path.lexists(f"/etc/{n}"))
    assert sorted(etc.split()) == listed
    assert sorted(dev.split()) == sorted([*DEVICES, "fd", "stdin", "stdout", "stderr", "shm"])
    assert rest == ["16", "16"], res.stdout  # not written, nothing made, no shadow; devices work


@pytest.mark.tools
def test_a_python_tool_runs_with_the_copied_etc(tmp_path: Path) -> None:
    """The interpreter (cocotb, the elaboration child) starts and resolves users through the copy."""
    code = "import pwd, time; print(pwd.getpwuid(0).pw_name, time.tzname[0])"
    res = run_tool([sys.executable, "-c", code], name="py", log_dir=tmp_path, timeout_s=60)
    direct = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert res.ok and res.stdout == direct.stdout, res.stderr
