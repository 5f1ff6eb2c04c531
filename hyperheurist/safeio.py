"""Files hh reads and writes in folders a sandboxed tool could write: never through what the tool left there.

A sandboxed tool can write its stage folder and nothing else, but what it leaves there is read and written by hh
afterwards, outside the sandbox (as root, often): a symbolic link named like a log hh appends to (``COMMANDS``,
``sim.log``) would make hh write a host file; one named like a result hh reads (``results.xml``) would make it
read a host file (``/proc/self/environ``: hh's own API key) into a message; a FIFO there would block hh forever.
Two rules, kept here in one place:

- ``sweep``: once a tool has ended, every symbolic link, FIFO, socket and device node in the folders it could
  write is removed (hh never makes one in a stage folder, and no tool needs to leave one), so every later read
  or write by path, by any stage, meets only regular files and folders. ``runner.run_tool`` sweeps after every
  tool; a run directory is swept when it is resumed (a kill can come between a tool and its sweep).
- ``open_regular`` / ``read_bytes`` / ``write_text`` / ``append_text``: hh's own files in those folders are
  opened with ``O_NOFOLLOW | O_NONBLOCK`` and used only when they are regular files; a write replaces whatever
  else stands at the name.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

NOFOLLOW = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # O_NONBLOCK: opening a FIFO must not wait for a peer


class UnsafeFile(OSError):
    """A name hh was to open is not a regular file (a link, a FIFO, ...): refused, never followed."""


def open_regular(path: Path | str, flags: int = os.O_RDONLY, mode: int = 0o644) -> int:
    """A descriptor for ``path`` when it is a regular file (or was created as one); its last component is never
    followed. UnsafeFile otherwise; OSError as ``os.open`` gives it (FileNotFoundError, ...)."""
    try:
        fd = os.open(path, flags | NOFOLLOW, mode)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):  # a link; a FIFO with no reader (write side)
            raise UnsafeFile(exc.errno, f"{path}: not a regular file (refused, not followed)") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UnsafeFile(0, f"{path}: not a regular file (refused, not followed)")
    return fd


def is_regular(path: Path | str) -> bool:
    """``path`` is a regular file itself (not a link to one)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def read_bytes(path: Path | str, limit: int | None = None) -> bytes:
    """The file's bytes (its last ``limit`` bytes when given); UnsafeFile when it is not a regular file."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if limit is not None and size > limit:
            os.lseek(fd, size - limit, os.SEEK_SET)
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _clear(path: Path | str) -> None:
    """Remove what stands at ``path`` unless it is a regular file or a folder (a link goes, not its target)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        os.unlink(path)


def _write(path: Path | str, data: bytes, flags: int) -> None:
    _clear(path)
    fd = open_regular(path, os.O_WRONLY | os.O_CREAT | flags)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def write_text(path: Path | str, text: str, errors: str = "strict") -> None:
    """Write ``text`` (UTF-8) to ``path``, replacing a link or a special file standing there (never its target)."""
    _write(path, text.encode("utf-8", errors), os.O_TRUNC)


def append_text(path: Path | str, text: str) -> None:
    """Append ``text`` (UTF-8) to ``path``, replacing a link or a special file standing there."""
    _write(path, text.encode("utf-8", "replace"), os.O_APPEND)


def create(path: Path | str) -> int:
    """A new, empty regular file at ``path`` (whatever stood there replaced), open for reading and writing."""
    _clear(path)
    return open_regular(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC)


def sweep(*folders: Path | str) -> list[str]:
    """Remove every symbolic link, FIFO, socket and device node under ``folders`` (links to folders are not
    entered); the removed paths, relative to their folder. A folder that is itself a link is not entered.
    Call it only when no tool can write there any more (its sandbox has ended)."""
    removed: list[str] = []
    for top in dict.fromkeys(map(str, folders)):
        if os.path.islink(top):
            continue
        todo = [top]
        while todo:
            here = todo.pop()
            try:
                entries = list(os.scandir(here))
            except OSError:
                continue
            for e in entries:
                try:
                    if e.is_dir(follow_symlinks=False):
                        todo.append(e.path)
                    elif not e.is_file(follow_symlinks=False):
                        os.unlink(e.path)
                        removed.append(os.path.relpath(e.path, top))
                except OSError:
                    continue
    return removed


def usage(*folders: Path | str) -> int:
    """Bytes of disk the files under ``folders`` take (allocated blocks: a sparse file counts what it holds);
    links to folders are not entered."""
    total = 0
    todo = list(dict.fromkeys(map(str, folders)))
    while todo:
        try:
            entries = list(os.scandir(todo.pop()))
        except OSError:
            continue
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    todo.append(e.path)
                else:
                    total += e.stat(follow_symlinks=False).st_blocks * 512
            except OSError:
                continue
    return total


def keep_tail(fd: int, limit: int) -> int:
    """Cut the file open at ``fd`` (read and write) to its last ``limit`` bytes, after a line saying how many went;
    the bytes dropped (0 when it was no longer)."""
    size = os.fstat(fd).st_size
    if size <= limit:
        return 0
    tail = os.pread(fd, limit, size - limit)
    head = f"[hh: the first {size - limit} bytes of this log were dropped; the last {limit} are kept]\n".encode()
    os.ftruncate(fd, 0)
    os.pwrite(fd, head + tail, 0)
    return size - limit
