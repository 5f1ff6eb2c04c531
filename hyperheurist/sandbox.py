"""The tool sandbox: every external tool runs in Linux namespaces made by bubblewrap.

What a sandboxed tool sees: a read-only system (``/usr``, the interpreter and venv, a few files of
``/etc``), the inputs its caller names (read-only), its own stage folder (the only writable place),
a private ``/tmp`` and ``HOME``, its own PID namespace (no ``/proc`` of hh or of any other process),
no network, and an environment built from nothing. Home folders, ``/root``, ``/run`` (sockets),
``/var``, ``/etc/shadow`` and the rest of the file system are simply not there.

``limits.sandbox: off`` runs tools directly (environment scrubbed of secrets, resource limits kept):
an explicit choice, warned about in every run and recorded in the manifest.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import ConfigError, ToolError

MODES = ("required", "off")
INSTALL_HINT = ("install bubblewrap (apt-get install bubblewrap) and allow user namespaces "
                "(sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu "
                "kernel.apparmor_restrict_unprivileged_userns=0), or set limits.sandbox: off")
# what the dynamic loader, locale-aware tools and Tcl (OpenSTA) read from /etc; nothing secret
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "passwd", "group",
             "nsswitch.conf", "host.conf", "mime.types")
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")
HOME = "/tmp/home"
BASE_PATH = "/usr/local/bin:/usr/bin:/bin"


class SandboxUnavailable(ToolError):
    """bubblewrap is missing or cannot create namespaces here (exit 3, with what to do)."""


@dataclass(frozen=True)
class Sandbox:
    """One sandboxed invocation: ``argv`` wrapped, ``env`` built from nothing."""

    writable: tuple[Path, ...]
    readable: tuple[Path, ...] = ()

    def wrap(self, argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> list[str]:
        """The bwrap command line that runs ``argv`` in ``cwd`` with exactly ``env``."""
        # no capabilities, own PID/network/IPC/UTS namespaces; a user namespace only where bwrap needs one
        # to run at all (unprivileged): as root it costs ~2.5 ms per call and adds nothing once caps are dropped
        out = [str(bwrap_path()), "--cap-drop", "ALL", "--unshare-pid", "--unshare-net", "--unshare-ipc",
               "--unshare-uts", "--unshare-cgroup-try", *(["--unshare-user"] if os.geteuid() != 0 else []),
               "--die-with-parent", "--new-session", "--clearenv",
               "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", HOME]
        for d in SYSTEM_DIRS:
            p = Path(d)
            if p.is_symlink():
                out += ["--symlink", os.readlink(p), d]
            elif p.is_dir():
                out += ["--ro-bind", d, d]
        for name in ETC_FILES:
            p = Path("/etc") / name
            if p.exists():
                out += ["--ro-bind", str(p), str(p)]
        bound: list[str] = list(SYSTEM_DIRS)
        for p in self.readable:
            if _hides_private(p):
                raise ConfigError(f"{p} cannot be given to a sandboxed tool as an input: it would replace the "
                                  "tool's private /tmp; keep designs and runs in a folder of their own")
        for p in _unique(list(_runtime_dirs()) + list(self.readable)):
            if p.exists() and not _covered(p, bound):  # a folder inside one bound already is visible
                out += ["--ro-bind", str(p), str(p)]
                bound.append(str(p))
        for p in _unique(self.writable):  # after the read-only binds: a stage folder inside an input stays writable
            out += ["--bind", str(p), str(p)]
        for k, v in sorted(env.items()):
            out += ["--setenv", k, v]
        out += ["--chdir", str(cwd), "--", *argv]
        return out


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
    s = str(p)
    return any(s == r or s.startswith(r.rstrip("/") + "/") for r in roots
               if Path(r).is_dir() and not Path(r).is_symlink())


@functools.lru_cache(maxsize=1)
def _runtime_dirs() -> tuple[Path, ...]:
    """The interpreter, its venv and import path: cocotb runs Python inside the simulator."""
    prefixes = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix), Path(sys.executable).resolve().parent}
    dirs = set(prefixes)
    for entry in sys.path:  # installed packages only: not the caller's working folder (`python -m` from /tmp)
        if entry and os.path.isabs(entry) and os.path.isdir(entry) and (
                "site-packages" in entry or "dist-packages" in entry or any(_inside(Path(entry), p) for p in prefixes)):
            dirs.add(Path(entry))
    return tuple(sorted(d for d in dirs if not _hides_private(d)))


def _inside(p: Path, root: Path) -> bool:
    return p == root or root in p.parents


def _hides_private(p: Path) -> bool:
    """Binding ``p`` would cover the sandbox's private /tmp (``/``, ``/tmp``)."""
    return _inside(Path("/tmp"), Path(os.path.abspath(p)))


def bwrap_path() -> Path:
    override = os.environ.get("HH_BWRAP")
    found = override or shutil.which("bwrap")
    if not found or not os.access(found, os.X_OK):
        raise SandboxUnavailable(f"the tool sandbox needs bubblewrap (bwrap), which was not found; {INSTALL_HINT}")
    return Path(found)


@functools.lru_cache(maxsize=1)
def probe() -> str:
    """How the sandbox runs here (one line), or SandboxUnavailable with the reason and the fix."""
    exe = bwrap_path()
    sb = Sandbox(writable=())
    argv = sb.wrap(["/bin/sh", "-c", "test ! -e /proc/1/environ || test $$ -lt 10"], tool_env(), Path("/"))
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL,
                              env={"PATH": BASE_PATH})
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxUnavailable(f"bubblewrap ({exe}) could not start: {exc}; {INSTALL_HINT}") from None
    if proc.returncode != 0:
        why = (proc.stderr or proc.stdout).strip().splitlines()
        raise SandboxUnavailable(f"bubblewrap ({exe}) cannot create the sandbox here: "
                                 f"{why[-1] if why else f'exit {proc.returncode}'}; {INSTALL_HINT}")
    version = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=20,
                             stdin=subprocess.DEVNULL).stdout.strip()
    who = "as root" if os.geteuid() == 0 else "unprivileged (user namespaces)"
    return f"{version or 'bubblewrap'} at {exe}, {who}: no network, own PID namespace, read-only system"


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"sandbox mode {mode!r}: use one of {', '.join(MODES)}")


OFF_WARNING = ("hh: warning: limits.sandbox is off: tools run unsandboxed, with network access, a view of "
               "every process and write access wherever hh can write (only the safety gate's filter stands "
               "between the candidate RTL and this machine)")


def enforce(mode: str) -> str | None:
    """At a command's start: SandboxUnavailable (exit 3, with the fix) when the sandbox is required but
    cannot run here, before any candidate is judged; the warning to print when it is off."""
    check_mode(mode)
    if mode == "off":
        return OFF_WARNING
    probe()
    return None


def describe(mode: str) -> dict[str, str]:
    """For the manifest: the mode and, when on, how the sandbox runs here."""
    if mode == "off":
        return {"mode": "off", "how": "unsandboxed (explicit choice)"}
    try:
        return {"mode": mode, "how": probe()}
    except SandboxUnavailable as exc:
        return {"mode": mode, "how": f"unavailable: {exc}"}
