"""Temporary folders that name their owner, so the ones a killed hh left behind are removed on the next start.

A folder is ``<tmp>/<prefix><PID namespace>-<pid>-<random>``. Python's own ``TemporaryDirectory`` removes it on
every exit Python sees (a normal end, an error, Ctrl-C: exit 130); only a SIGKILL (the OOM killer, a CI job's
timeout) leaves it. The next ``owned_tempdir`` with the same prefix removes such folders: this user's, of this PID
namespace (another container sharing /tmp numbers its processes apart), whose owner process is gone.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _pidns() -> int:
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def sweep_stale(prefix: str, folder: Path | None = None) -> list[Path]:
    """Remove the ``prefix`` folders a dead hh of this user and PID namespace left in ``folder`` (the temp
    folder by default); returns what was removed."""
    base = Path(folder or tempfile.gettempdir())
    mark, gone = f"{prefix}{_pidns()}-", []
    try:
        entries = list(os.scandir(base))
    except OSError:
        return []
    for entry in entries:
        owner = entry.name[len(mark):].split("-", 1)[0]
        if not entry.name.startswith(mark) or not owner.isdigit() or os.path.exists(f"/proc/{owner}"):
            continue
        try:
            if not entry.is_dir(follow_symlinks=False) or entry.stat(follow_symlinks=False).st_uid != os.getuid():
                continue
        except OSError:
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        gone.append(Path(entry.path))
    return gone


def make_owned(prefix: str, folder: Path | None = None) -> Path:
    """A new temporary folder named after this process in ``folder`` (the temp folder by default; the caller
    removes it); stale ones of ``prefix`` there go first."""
    sweep_stale(prefix, folder)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{_pidns()}-{os.getpid()}-", dir=folder))


@contextmanager
def owned_tempdir(prefix: str) -> Iterator[Path]:
    """``make_owned``, removed on leaving (on every exit Python sees)."""
    folder = make_owned(prefix)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
