"""Who a sandboxed tool is on the host when hh runs as root: an unprivileged id, never uid 0.

bwrap run by root makes no user namespace (it needs none), so without this step the tool would be kuid 0 on the
host with its capabilities dropped: the files it makes are root's and RLIMIT_NPROC does not bind it. Instead the
sandbox keeps three capabilities (CAP_SETUID, CAP_SETGID, CAP_SETPCAP) for its last step only: util-linux
``setpriv`` (from the read-only ``/usr``) switches to ``HH_SANDBOX_UID``:``HH_SANDBOX_GID`` (default 65534:65534,
nobody:nogroup), clears the supplementary groups, the inheritable and bounding capability sets, and execs the tool
with no capabilities at all (no_new_privs is set by bwrap). A user namespace with ``--uid`` is not enough: the
host still sees uid 0 (measured: a file it creates is root's).

The folders the tool may write (its stage folder) are handed over to that id just before it starts
(``hand_over``: every entry that is not the id's already, links never followed) and taken back by hh's own id
as soon as it has ended (``take_back``), so no other process running under the id can change them while hh reads
them, and a run folder is its operator's afterwards. A folder the tool must pass or read that only hh's id may
enter (``tempfile`` makes them 0700) gets the sandbox group's search (and for an input folder, read) bit
(``grant``); an input file the id cannot read is a configuration error naming it.

As an unprivileged user hh keeps what it did before: bwrap makes a user namespace and the tool runs as hh's id.
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from .errors import ConfigError, ToolError

DEFAULT_ID = 65534  # nobody / nogroup: there on every Linux; an operator sharing the machine should pick its own
UID_ENV, GID_ENV = "HH_SANDBOX_UID", "HH_SANDBOX_GID"
# kept by bwrap for setpriv only (placed after --cap-drop ALL); setpriv drops them for good before exec
KEEP_CAPS = ("--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP")


class SandboxUnavailable(ToolError):
    """bubblewrap is missing or cannot create namespaces here (exit 3, with what to do)."""


def identity() -> tuple[int, int] | None:
    """The (uid, gid) tools run as when hh is root; None when hh is not root (bwrap's user namespace as before)."""
    if os.geteuid() != 0:
        return None
    return _parse(os.environ.get(UID_ENV), os.environ.get(GID_ENV))


@functools.lru_cache(maxsize=8)
def _parse(uid_text: str | None, gid_text: str | None) -> tuple[int, int]:
    uid = _one(UID_ENV, uid_text, DEFAULT_ID)
    return uid, _one(GID_ENV, gid_text, DEFAULT_ID if uid_text is None else uid)


def _one(name: str, text: str | None, default: int) -> int:
    if text is None or not text.strip():
        return default
    try:
        value = int(text.strip(), 10)
    except ValueError:
        raise ConfigError(f"{name}={text!r}: give a numeric id (the sandbox's tools run as it)") from None
    if not 0 < value < 2**32 - 1:
        raise ConfigError(f"{name}={text!r}: give an unprivileged id (1 .. 4294967294; 0 is root)")
    return value


@functools.lru_cache(maxsize=1)
def setpriv_path() -> str | None:
    """util-linux ``setpriv`` under /usr (visible in the sandbox through its read-only /usr), or None."""
    found = shutil.which("setpriv", path="/usr/bin:/usr/sbin:/bin:/sbin")
    return os.path.realpath(found) if found else None


def switch_words(ids: tuple[int, int] | None) -> tuple[tuple[str, ...], list[str]]:
    """What bwrap's command line gains for ``ids``: the capabilities it keeps (after ``--cap-drop ALL``), and the
    words before the tool's argv (become ``ids`` with no groups and no capabilities, then exec it)."""
    if ids is None:
        return (), []
    setpriv = setpriv_path()
    if setpriv is None:
        raise SandboxUnavailable("running as root, the sandbox needs util-linux setpriv (/usr/bin/setpriv) to "
                                 "start tools as an unprivileged user: install util-linux")
    uid, gid = ids
    return KEEP_CAPS, [setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--nnp", "--"]


def mount_parents(dests: Sequence[str], system: Sequence[str]) -> list[str]:
    """The folders above the mount points ``dests`` (parents first) outside the system binds: made by ``--dir``
    (mode 0755) before the binds, else bwrap makes them 0700 and only uid 0 could pass them."""
    out: dict[str, None] = {}
    for d in dests:
        for p in reversed(Path(d).parents):
            s = str(p)
            if s != "/" and not any(s == r or s.startswith(r + "/") for r in system):
                out[s] = None
    return list(out)


def _walk(top: Path) -> Iterable[tuple[str, os.stat_result]]:
    """``top`` and everything under it, as (path, lstat); links and mount points of others are not entered."""
    try:
        st = os.lstat(top)
    except OSError:
        return
    yield str(top), st
    if not stat.S_ISDIR(st.st_mode):
        return
    todo = [str(top)]
    while todo:
        try:
            entries = list(os.scandir(todo.pop()))
        except OSError:
            continue
        for e in entries:
            try:
                est = e.stat(follow_symlinks=False)
            except OSError:
                continue
            yield e.path, est
            if stat.S_ISDIR(est.st_mode) and est.st_dev == st.st_dev:
                todo.append(e.path)


def _own(folders: Sequence[Path], uid: int, gid: int, top_gid: int) -> None:
    for top in dict.fromkeys(folders):
        for path, st in _walk(top):
            want = (uid, top_gid if path == str(top) else gid)
            if (st.st_uid, st.st_gid) != want:
                try:
                    os.chown(path, *want, follow_symlinks=False)
                except FileNotFoundError:
                    continue
            if path == str(top) and not st.st_mode & 0o010:  # bwrap (hh's id, no capabilities) enters it
                os.chmod(path, stat.S_IMODE(st.st_mode) | 0o010)


def hand_over(folders: Sequence[Path], ids: tuple[int, int]) -> None:
    """The folders a tool may write, and all in them, owned by ``ids`` (just before it starts). A folder itself keeps
    hh's group with its search bit: bwrap, still hh's id but without capabilities, must enter it (``--chdir``)."""
    _own(folders, *ids, os.getegid())


def take_back(folders: Sequence[Path]) -> None:
    """The same folders owned by hh's id again (once the tool has ended)."""
    _own(folders, os.geteuid(), os.getegid(), os.getegid())


def _may(st: os.stat_result, ids: tuple[int, int], bits: int) -> bool:
    """``ids`` (no supplementary groups) has every permission in ``bits`` (a combination of 4, 2, 1) on it."""
    uid, gid = ids
    shift = 6 if st.st_uid == uid else 3 if st.st_gid == gid else 0
    return (st.st_mode >> shift) & bits == bits


def grant(readable: Sequence[Path], writable: Sequence[Path], ids: tuple[int, int]) -> None:
    """Let ``ids`` reach what it must: every folder on the way from a bound input to a writable folder inside it,
    and every bound input folder (read). A folder hh's id owns gets the sandbox group and the missing group bit;
    anything else it cannot read or pass is a ConfigError naming it."""
    me = os.geteuid()
    need: dict[str, int] = {str(r): 0o5 for r in readable}
    for t in (*readable, *writable):
        for r in readable:
            if r in t.parents:
                for p in t.parents:
                    if p == r:
                        break
                    need.setdefault(str(p), 0o1)
    for path, bits in need.items():
        try:
            st = os.stat(path)
        except OSError:
            continue  # not there: not bound
        want = bits if stat.S_ISDIR(st.st_mode) else 0o4
        if _may(st, ids, want):
            continue
        if st.st_uid == me and stat.S_ISDIR(st.st_mode) and st.st_gid in (ids[1], os.getegid()):
            os.chown(path, -1, ids[1])
            os.chmod(path, stat.S_IMODE(st.st_mode) | (want << 3))
            continue
        raise ConfigError(f"{path} cannot be read by the sandbox's user {ids[0]}:{ids[1]} ({UID_ENV}, {GID_ENV}): "
                          f"it is {stat.filemode(st.st_mode)}, owner {st.st_uid}:{st.st_gid}; make it readable "
                          "to that user (chmod o+r, and o+x on folders) or keep it in a folder that is")
