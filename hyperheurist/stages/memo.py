"""What the stage runner remembers of cacheable invocations.

An invocation marked ``cacheable`` reads nothing but its argv and the files its plan hands over (the
preprocessor: the sources and the defines file), so what it gives is a pure function of those and the
tool's version. The runner keeps its logs and declared outputs after a clean run, in this process and
beside the PPA cache (content-addressed, like it), so the same sources are never preprocessed twice: not
the reference for the next candidate, not a Phase-2 parent another worker preprocessed, not a
recipe-only evaluation. File names are taken relative to the tool's working directory, so a design
preprocessed as a candidate and later as the golden side is one entry.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
from dataclasses import dataclass
from pathlib import Path

from ..cachedir import default_cache_dir
from ..jsonio import write_text_atomic
from ..versions import tool_version
from .model import Invocation

ENTRIES, ENTRY_BYTES = 64, 1 << 20
_held: dict[str, Remembered] = {}


@dataclass(frozen=True)
class Remembered:
    stdout: str
    stderr: str
    outputs: dict[str, str]  # by name relative to the tool's working directory


def key(inv: Invocation) -> str:
    files = sorted((posixpath.relpath(n, inv.cwd), t) for n, t in inv.files.items())
    blob = json.dumps({"tool": tool_version(inv.argv[0]), "argv": inv.argv, "files": files}, ensure_ascii=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _path(k: str) -> Path:
    return default_cache_dir() / "invocations" / k[:2] / f"{k}.json"


def recall(k: str) -> Remembered | None:
    """The entry for ``k`` (held in this process, else read from disk), or None."""
    if k in _held:
        return _held[k]
    try:
        data = json.loads(_path(k).read_text(encoding="utf-8"))
        if data["key"] != k:  # a file copied or moved to another entry's name is not that entry
            return None
        got = Remembered(str(data["stdout"]), str(data["stderr"]), {str(n): str(t) for n, t in data["outputs"].items()})
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # missing or unreadable: run the tool
    _hold(k, got)
    return got


def keep(k: str, got: Remembered) -> None:
    """Hold and store ``got`` (best effort; entries over ``ENTRY_BYTES`` are not kept)."""
    size = len(got.stdout) + len(got.stderr) + sum(len(t) for t in got.outputs.values())
    if size > ENTRY_BYTES:
        return
    _hold(k, got)
    doc = {"key": k, "stdout": got.stdout, "stderr": got.stderr, "outputs": got.outputs}
    try:
        write_text_atomic(_path(k), json.dumps(doc, ensure_ascii=True))
    except OSError:
        pass  # a cache that cannot be written never fails an evaluation


def forget() -> None:
    """Drop what this process holds (the disk entries stay: point HH_CACHE_DIR elsewhere for a cold run)."""
    _held.clear()


def _hold(k: str, got: Remembered) -> None:
    if len(_held) >= ENTRIES:
        _held.pop(next(iter(_held)))
    _held[k] = got
