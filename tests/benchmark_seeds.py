"""The benchmark seed convention, in one place (test_benchmarks, _a and _b kept three differing copies):
the first line is ``// SEED: valid|faulty - <what it is>``, ``ok_*`` files are valid, ``bad_*`` faulty."""

from __future__ import annotations

import re
from pathlib import Path

HEADER = re.compile(r"^// SEED: (valid|faulty) - \S.{10,}$")


def seed_label(path: Path) -> str:
    """'valid' or 'faulty' from the header, which must agree with the file name."""
    first = path.read_text(encoding="utf-8").splitlines()[0]
    m = HEADER.match(first)
    assert m, f"{path.name}: first line must be '// SEED: valid|faulty - <what>', got {first!r}"
    implied = "valid" if path.name.startswith("ok_") else "faulty" if path.name.startswith("bad_") else None
    assert m.group(1) == implied, f"{path.name}: header says {m.group(1)}, the name implies {implied}"
    return m.group(1)
