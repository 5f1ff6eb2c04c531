"""The tool sandbox: every external tool runs in Linux namespaces made by bubblewrap.

What a sandboxed tool sees: a read-only system (``/usr``, the interpreter and venv, a private copy of a
few files of ``/etc``), ``/dev/null``, ``/dev/zero`` and ``/dev/urandom``, the inputs its caller names
(read-only), its own stage folder (the only writable place), a private ``/tmp`` and ``HOME``, its own
PID namespace (no ``/proc`` of hh or of any other process), no network, and an environment built from
nothing. Home folders, ``/root``, ``/run`` (sockets), ``/var``, ``/etc/shadow``, the host's devices and
the rest of the file system are simply not there. As root, hh starts tools as an unprivileged id (``sandbox_user``).
Each bind mount costs bwrap ~0.04 ms (it re-reads the mount table every time), so the fixed part of the
command line is built once per process and ``/etc`` is one bind of a prepared folder (``EtcCopy``).

``limits.sandbox: off`` runs tools directly (environment scrubbed of secrets, resource limits kept):
an explicit choice, warned about in every run and recorded in the manifest.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import stat
import sys
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import ConfigError
from .sandbox_user import SandboxUnavailable as SandboxUnavailable
from .sandbox_user import identity, mount_parents, switch_words

MODES = ("required", "off")
INSTALL_HINT = ("install bubblewrap (apt-get install bubblewrap) and allow user namespaces "
                "(sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu "
                "kernel.apparmor_restrict_unprivileged_userns=0), or set limits.sandbox: off")
# what the dynamic loader, locale-aware tools and Tcl (OpenSTA) read from /etc; nothing secret
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "passwd", "group",
             "nsswitch.conf", "host.conf", "mime.types")
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")
# the devices tools open: /dev/null (shells, make), /dev/urandom (gcc's random seed in Verilator builds),
# /dev/zero; bwrap's --dev adds tty, full, random and a devpts, each a mount (~0.3 ms per call in all)
DEVICES = ("null", "zero", "urandom")
DEV_LINKS = (("/proc/self/fd", "/dev/fd"), ("/proc/self/fd/0", "/dev/stdin"), ("/proc/self/fd/1", "/dev/stdout"),
             ("/proc/self/fd/2", "/dev/stderr"))
HOME = "/tmp/home"
BASE_PATH = "/usr/local/bin:/usr/bin:/bin"


@dataclass(frozen=True)
class Sandbox:
    """One sandboxed invocation: ``argv`` wrapped, ``env`` built from nothing."""

    writable: tuple[Path, ...]
    readable: tuple[Path, ...] = ()

    def wrap(self, argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> list[str]:
        """The bwrap command line that runs ``argv`` in ``cwd`` with exactly ``env``. Start it in a new session
        (``start_new_session=True``): that keeps the sandbox away from hh's controlling terminal (no TIOCSTI)
        and lets ``killpg`` reach it; and through a start gate (``rlimits.StartGate``), which sets the limits."""
        fixed, system = _fixed_args()
        caps, switch = switch_words(identity())  # as root: the tool runs as an unprivileged id (sandbox_user)
        out = [str(bwrap_path()), *fixed, *caps, "--ro-bind", str(ETC.folder()), "/etc"]
        head = len(out)
        for p in self.readable:
            if _hides_private(p):
                raise ConfigError(f"{p} cannot be given to a sandboxed tool as an input: it would replace the "
                                  "tool's private /tmp; keep designs and runs in a folder of their own")
        bound = list(system)
        for p in _unique(list(_runtime_dirs()) + list(self.readable)):
            if _in_etc_copy(p):
                continue
            try:
                is_dir = stat.S_ISDIR(os.stat(p).st_mode) and not p.is_symlink()
            except OSError:
                continue  # not there: nothing to show
            if not _covered(p, bound):  # a folder inside one bound already is visible
                out += ["--ro-bind", str(p), str(p)]
                if is_dir:
                    bound.append(str(p))
        for p in _unique(self.writable):  # after the read-only binds: a stage folder inside an input stays writable
            out += ["--bind", str(p), str(p)]
        dests = [out[i + 2] for i in range(head, len(out)) if out[i] in ("--ro-bind", "--bind")]
        out[head:head] = [w for d in mount_parents(dests, system) for w in ("--dir", d)]  # 0755, not bwrap's 0700
        return [*out, *(w for k, v in sorted(env.items()) for w in ("--setenv", k, v)), "--chdir", str(cwd), "--",
                *switch, *argv]


@functools.lru_cache(maxsize=1)
def _fixed_args() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The part of every command line that depends only on this machine (built once), and the folders it binds."""
    # no capabilities, own PID/network/IPC/UTS namespaces; a user namespace only where bwrap needs one to run at
    # all (unprivileged; as root the tool becomes an unprivileged id: ``sandbox_user``). No --new-session: bwrap
    # starts in a session of its own (``wrap``); a second one (each a scheduler autogroup) cost ~1.5 ms per call
    out = ["--cap-drop", "ALL", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
           "--unshare-cgroup-try", *(["--unshare-user"] if os.geteuid() != 0 else []),
           "--die-with-parent", "--clearenv", "--proc", "/proc", "--perms", "0755", "--dir", "/dev"]
    for d in DEVICES:
        out += ["--dev-bind", f"/dev/{d}", f"/dev/{d}"]
    for target, link in DEV_LINKS:
        out += ["--symlink", target, link]
    for folder, kind in (("/dev/shm", "--dir"), ("/tmp", "--tmpfs"), (HOME, "--dir")):  # writable to the tool's id
        out += ["--perms", "1777", kind, folder]
    bound: list[str] = []
    for d in SYSTEM_DIRS:
        p = Path(d)
        if p.is_symlink():
            out += ["--symlink", os.readlink(p), d]
        elif p.is_dir():
            out += ["--ro-bind", d, d]
            bound.append(d)
    return tuple(out), tuple(bound)


def _in_etc_copy(p: Path) -> bool:
    """``p`` is the sandbox's /etc or inside it: visible through the copy when it is one of ETC_FILES,
    else a config error (a bind there would need a mount point inside the read-only copy)."""
    if (s := str(p)) != "/etc" and not s.startswith("/etc/"):
        return False
    if s[len("/etc/"):].split("/", 1)[0] in ETC_FILES:
        return True
    raise ConfigError(f"{p} cannot be given to a sandboxed tool as an input: the sandbox's /etc holds only "
                      f"{', '.join(ETC_FILES)}; keep designs and tools in a folder of their own")


# ---- the sandbox's /etc -------------------------------------------------------------------------------------
def runtime_root() -> Path:
    """A folder only this user can enter, for what hh prepares for its sandbox: ``$XDG_RUNTIME_DIR/hyperheurist``,
    else ``<tmp>/hh-<uid>``. Refused when another user made it or others may write into it (a planted /etc)."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    root = (Path(xdg) / "hyperheurist" if xdg and os.path.isabs(xdg)
            else Path(tempfile.gettempdir()) / f"hh-{os.geteuid()}")
    try:
        root.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(root)
    except OSError as exc:
        raise SandboxUnavailable(f"cannot prepare the sandbox's /etc in {root}: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077:
        raise SandboxUnavailable(f"{root} must be a folder of user {os.geteuid()} that only it can enter "
                                 f"(mode 0700; it is {stat.filemode(st.st_mode)}, owner {st.st_uid}): remove it")
    return root


@dataclass(frozen=True)
class _Entry:
    rel: str  # path inside the copy
    kind: str  # "d", "f" or "l"
    mode: int
    data: bytes  # a file's content, a link's target


def _entries(src: Path, names: Sequence[str], visible: Sequence[str]) -> list[_Entry]:
    """What the copy holds, parents first. A listed link stays a link when its target is visible in the
    sandbox anyway, else its target is copied (what a bind of the link showed); links inside a listed
    folder are kept as they are. An entry this user cannot read is left out (the tool could not read it)."""
    out: list[_Entry] = []
    for name in names:
        p = src / name
        if p.is_symlink():
            target = os.path.realpath(p)
            if _covered(Path(target), visible):
                out.append(_Entry(name, "l", 0o777, os.fsencode(os.readlink(p))))
                continue
            p = Path(target)
        _walk(p, name, out)
    return out


def _walk(path: Path, rel: str, out: list[_Entry]) -> None:
    mark = len(out)
    try:
        st = os.lstat(path)
        mode = stat.S_IMODE(st.st_mode)
        if stat.S_ISLNK(st.st_mode):
            out.append(_Entry(rel, "l", 0o777, os.fsencode(os.readlink(path))))
        elif stat.S_ISREG(st.st_mode):
            out.append(_Entry(rel, "f", mode, path.read_bytes()))
        elif stat.S_ISDIR(st.st_mode):
            out.append(_Entry(rel, "d", mode, b""))
            for child in sorted(os.listdir(path)):
                _walk(path / child, f"{rel}/{child}", out)
    except OSError:  # missing, or unreadable to this user and so to the tool: left out
        del out[mark:]


def _digest(entries: Sequence[_Entry]) -> str:
    h = hashlib.sha256()
    for e in entries:
        h.update(f"{e.rel}\0{e.kind}\0{e.mode:o}\0{len(e.data)}\0".encode(errors="surrogateescape"))
        h.update(e.data)
    return h.hexdigest()


def _materialise(entries: Sequence[_Entry], folder: Path) -> None:
    for e in entries:
        p = folder / e.rel
        if e.kind == "d":
            p.mkdir(mode=0o700)
        elif e.kind == "l":
            os.symlink(os.fsdecode(e.data), p)
        else:
            p.write_bytes(e.data)
            p.chmod(e.mode & 0o755)
    for e in reversed(entries):  # folders last, children before parents
        if e.kind == "d":
            (folder / e.rel).chmod(e.mode & 0o755)
    folder.chmod(0o755)


class EtcCopy:
    """The sandbox's ``/etc``: a copy of the listed entries of ``src``, bound read-only in one mount (a bind
    per file, ten in all, cost ~0.4 ms per call). Its folder is ``<runtime_root>/etc-<digest of its content>``:
    made once (written under a temporary name, then renamed, so a folder that exists is complete; of two processes
    making it at once, one rename wins and both use that folder), shared by every process that sees the
    same /etc, and a new one when a listed entry changes."""

    def __init__(self, src: Path, names: Sequence[str], root: Path | None = None) -> None:
        self.src, self.names, self.root = Path(src), tuple(names), root
        self._paths = tuple(os.path.join(src, n) for n in self.names)
        self._lock = threading.Lock()
        self._seen: tuple[object, ...] | None = None
        self._folder: Path | None = None

    def folder(self) -> Path:
        with self._lock:
            seen = self._signature()
            if seen != self._seen or self._folder is None or not self._folder.is_dir():
                self._folder, self._seen = self._prepare(), seen
            return self._folder

    def _signature(self) -> tuple[object, ...]:
        """Checked on every call (~20 stats): an edit or a replacement of a listed entry (apt and
        update-alternatives write a new file and rename it) changes it, and so does an entry added to or
        removed from a listed folder. An in-place edit inside ld.so.conf.d does not; the loader reads only
        ld.so.cache."""
        sig: list[object] = []
        for path in self._paths:
            try:
                st = os.lstat(path)
                if stat.S_ISLNK(st.st_mode):
                    sig.append((st.st_ino, st.st_mtime_ns, st.st_ctime_ns))
                    st = os.stat(path)
                sig.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode))
            except OSError:
                sig.append(None)
        return tuple(sig)

    def _prepare(self) -> Path:
        root = self.root or runtime_root()
        entries = _entries(self.src, self.names, _fixed_args()[1])
        final = root / f"etc-{_digest(entries)[:32]}"
        tops = [e.rel for e in entries if "/" not in e.rel]
        if _complete(final, tops):
            return final
        tmp = Path(tempfile.mkdtemp(prefix=".etc-", dir=root))
        own = False  # True: this process keeps its copy under the temporary name
        try:
            _materialise(entries, tmp)
            try:
                tmp.rename(final)  # atomic; fails when another process made this folder first
                return final
            except OSError:
                if _complete(final, tops):
                    return final
                own = True  # the name holds a broken folder: use this process's own copy
                return tmp
        except OSError as exc:
            raise SandboxUnavailable(f"cannot prepare the sandbox's /etc in {root}: {exc}") from None
        finally:
            if not own:
                shutil.rmtree(tmp, ignore_errors=True)  # gone already after a successful rename


def _complete(folder: Path, tops: Sequence[str]) -> bool:
    """``folder`` is a made copy (a real folder holding every listed entry; a tmp cleaner may have eaten one)."""
    return folder.is_dir() and not folder.is_symlink() and all(os.path.lexists(folder / t) for t in tops)


ETC = EtcCopy(Path("/etc"), ETC_FILES)


def tool_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The whole environment a sandboxed tool gets: PATH, a private HOME, C locale, and ``extra``."""
    env = {"PATH": BASE_PATH, "HOME": HOME, "TMPDIR": "/tmp", "LC_ALL": "C", "LANG": "C"}
    if extra:
        env.update(extra)
    # `python` is this interpreter (Verilator's makefiles and cocotb call it; a pyenv shim is not visible)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env["PATH"]])
    return env


def _unique(paths: Iterable[Path]) -> list[Path]:
    seen: dict[str, Path] = {}
    for p in paths:
        rp = Path(os.path.abspath(p))
        seen.setdefault(str(rp), rp)
    # parents before children, so a nested bind is not hidden by its parent's
    return sorted(seen.values(), key=lambda p: len(p.parts))


def _covered(p: Path, roots: Sequence[str]) -> bool:
    """``p`` is one of ``roots`` (bound folders) or inside one."""
    s = str(p)
    return any(s == r or s.startswith(r.rstrip("/") + "/") for r in roots)


@functools.lru_cache(maxsize=1)
def _runtime_dirs() -> tuple[Path, ...]:
    """The interpreter, its venv and import path: cocotb runs Python inside the simulator."""
    prefixes = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix), Path(sys.executable).resolve().parent}
    dirs, roots = set(prefixes), list(map(str, prefixes))
    for entry in sys.path:  # installed packages only: not the caller's working folder (`python -m` from /tmp)
        if entry and os.path.isabs(entry) and os.path.isdir(entry) and (
                "site-packages" in entry or "dist-packages" in entry or _covered(Path(entry), roots)):
            dirs.add(Path(entry))
    return tuple(sorted(d for d in dirs if not _hides_private(d)))


def _hides_private(p: Path) -> bool:
    """Binding ``p`` would cover the sandbox's private /tmp (``/``, ``/tmp``)."""
    return os.path.abspath(p) in ("/", "/tmp")


def bwrap_path() -> Path:
    return _find_bwrap(os.environ.get("HH_BWRAP"), os.environ.get("PATH"))


@functools.lru_cache(maxsize=4)
def _find_bwrap(override: str | None, search: str | None) -> Path:
    found = override or shutil.which("bwrap", path=search)
    if not found or not os.access(found, os.X_OK):
        raise SandboxUnavailable(f"the tool sandbox needs bubblewrap (bwrap), which was not found; {INSTALL_HINT}")
    return Path(found)


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"sandbox mode {mode!r}: use one of {', '.join(MODES)}")
