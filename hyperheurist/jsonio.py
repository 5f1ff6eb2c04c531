"""Atomic JSON writes, append-only JSONL journals, and defensive accessors for JSON read back from disk."""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def _default(obj: Any) -> Any:
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    if isinstance(obj, (set, frozenset)):
        return sorted(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def dumps(data: Any, indent: int | None = 2) -> str:
    return json.dumps(data, indent=indent, sort_keys=False, default=_default)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _umask()


def write_text_atomic(path: Path, text: str, errors: str = "strict") -> None:
    """Write via a temp file in the same folder, fsync, then rename over the target."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)  # mkstemp makes 0600; the result should read like any written file
        with os.fdopen(fd, "w", encoding="utf-8", errors=errors) as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_json(path: Path, data: Any) -> None:
    write_text_atomic(path, dumps(data) + "\n")


def read_json(path: Path) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def append_jsonl(path: Path, record: Any) -> None:
    """Append one line and fsync, so a SIGKILL leaves at most a torn last line."""
    line = dumps(record, indent=None) + "\n"
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """Yield records; a torn final line (killed mid-write) is skipped."""
    path = Path(path)
    if not path.exists():
        return
    with open(path, "rb") as fh:
        lines = fh.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for i, raw in enumerate(lines):
        if not raw.strip():
            continue
        last = i == len(lines) - 1  # possibly torn by a kill mid-write (maybe mid-character): skipped
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            if last:
                return
            raise ValueError(f"{path}:{i + 1}: not UTF-8 (byte {exc.start})") from None
        try:
            rec = json.loads(text)
        except json.JSONDecodeError:
            if last:
                return
            raise
        if isinstance(rec, dict):  # a line that is not a JSON object is not a record
            yield rec


def repair_jsonl(path: Path) -> int:
    """Cut a torn final line (left by a kill mid-write) so appends start on a fresh line.

    Returns the number of bytes removed.
    """
    path = Path(path)
    if not path.exists():
        return 0
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return 0
    keep = data.rfind(b"\n") + 1
    with open(path, "r+b") as fh:
        fh.truncate(keep)
        fh.flush()
        os.fsync(fh.fileno())
    return len(data) - keep


# ---- reading JSON back: wrong types become None or empty, never a crash ---------------------------------

def num(x: Any) -> float | None:
    """A finite float, or None for missing, non-numeric, boolean or non-finite values."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    f = float(x)
    return f if math.isfinite(f) else None


def as_dict(x: Any) -> dict[str, Any]:
    return x if isinstance(x, dict) else {}


def as_list(x: Any) -> list[Any]:
    return x if isinstance(x, list) else []


def text(x: Any) -> str:
    """A display string; None becomes empty."""
    if x is None:
        return ""
    return x if isinstance(x, str) else str(x)
