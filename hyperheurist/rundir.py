"""The run directory: the complete record of one ``hh run``.

Layout::

    runs/<design>/<timestamp>-s<seed>/
        manifest.json   hh version, git revision, tool paths and versions, seed, argv
        resolved.yaml   the validated design.yaml with every path absolute
        COMMANDS        every tool command line, in order
        candidates/<digest12>/src/*.v, candidate.json, eval-<recipe>[-vs-<parent12>]/ (one per evaluation:
                        src/, canonical/, NN-<stage>/{logs, COMMANDS, result.json})
        journal.jsonl   one line per evaluation / annealing step
        summary.json    the outcome
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from . import __version__
from .candidate import Candidate
from .config import DesignConfig
from .jsonio import read_json, write_json, write_text_atomic
from .safeio import sweep
from .sandbox_probe import describe as describe_sandbox
from .secrets import without_credentials
from .versions import git_revision, tool_versions

_held_locks: dict[Path, int] = {}  # run directory -> locked descriptor
SOURCE_COPY_LIMIT = 4_000_000  # bytes of candidate sources copied into a candidate folder before any gate


class Manifest(TypedDict):
    """manifest.json (after its ``run_id``): what ran, where, with which tools, when."""

    hyperheurist: str  # hh's version
    git_revision: str | None
    python: str
    platform: str
    design: str
    design_yaml: str | None
    seed: int
    argv: list[str]  # credentials left out
    tools: dict[str, dict[str, str]]  # name -> {path, version} or {error}
    liberty: str
    sandbox: dict[str, str]  # the mode and how it runs here
    created: str  # UTC, ISO 8601


def manifest(design: DesignConfig, seed: int, argv: list[str] | None = None) -> Manifest:
    return Manifest(
        hyperheurist=__version__,
        git_revision=git_revision(),
        python=sys.version.split()[0],
        platform=platform.platform(),
        design=design.name,
        design_yaml=str(design.source) if design.source else None,
        seed=seed,
        argv=[without_credentials(a) for a in (argv if argv is not None else sys.argv)],
        tools=tool_versions(),
        liberty=str(design.ppa.liberty_path),
        sandbox=describe_sandbox(design.limits.sandbox),
        created=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    )


@dataclass
class RunDir:
    path: Path

    @classmethod
    def create(cls, design: DesignConfig, seed: int, root: Path | str = "runs",
               argv: list[str] | None = None, path: Path | None = None) -> RunDir:
        if path is None:  # a fresh name; two runs started in the same second race for it: mkdir decides
            stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
            base = Path(root) / design.name
            base.mkdir(parents=True, exist_ok=True)
            if base.is_symlink():  # hh's own folder under --out: a link planted there would take the run elsewhere
                from .errors import InputError

                raise InputError(f"{base}: a symbolic link where hh keeps the runs of {design.name!r}; remove it "
                                 "(hh does not follow links it did not make)")
            n = 1
            while True:
                path = base / (f"{stamp}-s{seed}" if n == 1 else f"{stamp}-s{seed}-{n}")
                try:
                    path.mkdir()
                    break
                except FileExistsError:
                    n += 1
        else:
            path = Path(path)
            path.mkdir(parents=True, exist_ok=False)
        rd = cls(path.resolve())
        (rd.path / "candidates").mkdir()
        # the run id binds journal lines to this run (a line copied from another run is refused)
        write_json(rd.path / "manifest.json", {"run_id": uuid.uuid4().hex, **manifest(design, seed, argv)})
        write_text_atomic(rd.path / "resolved.yaml", design.resolved_yaml())
        return rd

    @classmethod
    def open(cls, path: Path | str) -> RunDir:
        from .errors import InputError

        p = Path(path).resolve()
        if not (p / "manifest.json").is_file() or not (p / "resolved.yaml").is_file():
            raise InputError(f"{p}: not a run directory (no manifest.json / resolved.yaml)")
        return cls(p)

    def lock(self) -> None:
        """Hold ``.lock`` (flock, exclusive) for this process's lifetime: a second ``hh run --resume`` of
        the same run directory would interleave its journal with ours. The kernel drops the lock when
        the process dies, SIGKILL included, so a killed run never leaves a stale lock."""
        import fcntl

        from .errors import InputError

        fd = os.open(self.path / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise InputError(f"{self.path}: in use by another hh run (pid {holder}); "
                             "wait for it or stop it first") from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        _held_locks[self.path] = fd

    def unlock(self) -> None:
        fd = _held_locks.pop(self.path, None)
        if fd is not None:
            os.close(fd)  # closing the descriptor releases the flock

    def remove_stale_temp_files(self) -> int:
        """Delete the ``.<name>.<random>.tmp`` files an atomic write leaves when the run is killed mid-write, and
        whatever a tool killed with hh left that is not a file or folder (``safeio.sweep``: run_tool sweeps after
        each tool, but the kill may come first). Call only when no process is writing the run: on resume."""
        n = len(sweep(self.path))
        for f in self.path.rglob(".*.tmp"):
            try:
                f.unlink()
                n += 1
            except OSError:
                pass
        return n

    @property
    def run_id(self) -> str:
        from .errors import InputError

        try:
            run_id = read_json(self.path / "manifest.json").get("run_id")
        except (OSError, ValueError, AttributeError):
            run_id = None
        if not isinstance(run_id, str) or not run_id:
            raise InputError(f"{self.path / 'manifest.json'}: no run_id (unreadable, or written by an older hh); "
                             "cannot verify this run's journal")
        return run_id

    @property
    def journal(self) -> Path:
        return self.path / "journal.jsonl"

    @property
    def summary(self) -> Path:
        return self.path / "summary.json"

    @property
    def commands(self) -> Path:
        return self.path / "COMMANDS"

    @property
    def resolved(self) -> Path:
        return self.path / "resolved.yaml"

    def candidate_dir(self, cand: Candidate) -> Path:
        """Create (once) and return ``candidates/<digest12>/`` with the sources written.

        Untrusted sources larger than ``SOURCE_COPY_LIMIT`` in all are not copied here (the gates
        write their own copy once the safety gate has vetted sizes); ``candidate.json`` says so.
        """
        d = self.path / "candidates" / cand.short
        if not (d / "candidate.json").exists():
            d.mkdir(parents=True, exist_ok=True)
            info = cand.to_dict()
            size = sum(len(t.encode("utf-8", errors="surrogateescape")) for _, t in cand.files)
            if size <= SOURCE_COPY_LIMIT:  # atomically: a concurrent evaluation of the same RTL may be reading
                for name, text in cand.files:
                    write_text_atomic(d / "src" / Path(name).name, text, errors="surrogateescape")
            else:
                info["sources_not_copied"] = f"{size} bytes, more than {SOURCE_COPY_LIMIT}"
            write_json(d / "candidate.json", info)
        return d


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
