"""Defensive accessors for JSON read back from disk: wrong types become None, never a crash."""

from __future__ import annotations

import math
from typing import Any


def num(x: Any) -> float | None:
    """A finite float, or None for missing, non-numeric, boolean or non-finite values."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    f = float(x)
    return f if math.isfinite(f) else None


def as_dict(x: Any) -> dict:
    return x if isinstance(x, dict) else {}


def as_list(x: Any) -> list:
    return x if isinstance(x, list) else []


def text(x: Any) -> str:
    """A display string; None becomes empty."""
    if x is None:
        return ""
    return x if isinstance(x, str) else str(x)
