"""The seed conventions every benchmark follows, in one place: a file named ``ok_<n>_<what>.v`` is a valid
seed and ``bad_<what>.v`` a faulty one, and its first line says the same in a ``// SEED:`` header."""

from __future__ import annotations

import re
from pathlib import Path

HEADER = re.compile(r"^// SEED: (valid|faulty) - (\S.*)$")
NAME = re.compile(r"^(?:ok_(?P<rank>\d+)|bad)_\w+\.s?v$")


def kind_by_name(path: Path) -> str | None:
    """"valid" for ok_*, "faulty" for bad_*, None for a name outside the convention."""
    m = NAME.match(Path(path).name)
    return None if m is None else ("valid" if m.group("rank") else "faulty")


def kind_by_header(path: Path) -> tuple[str, str] | None:
    """(kind, what) from the first line's SEED header, or None when there is none."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    m = HEADER.match(lines[0]) if lines else None
    return None if m is None else (m.group(1), m.group(2))


def rank(path: Path) -> int | None:
    """A valid seed's number (ok_1_ the naive single-pass baseline, ok_2_ an alternative architecture)."""
    m = NAME.match(Path(path).name)
    return None if m is None or m.group("rank") is None else int(m.group("rank"))
