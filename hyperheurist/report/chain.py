"""A design state named by how the run reached it: the accepted moves (journal ``step`` records,
``parent`` -> ``proposal``) from its Phase-1 start design.
"""

from __future__ import annotations

from typing import Any

from ..jsonio import text
from .fmt import MISSING
from .rundata import RunData

MAX_STEPS = 10_000


def chain(rd: RunData, key: str) -> list[dict[str, Any]]:
    """The ``step`` records from the start to ``key``, oldest first ([] for a start design)."""
    made: dict[str, dict[str, Any]] = {}
    for st in rd.steps:  # the first accepted step that made each state; else the first that proposed it
        k = text(st.get("proposal"))
        if k and (k not in made or (st.get("accepted") is True and made[k].get("accepted") is not True)):
            made[k] = st
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    while key in made and key not in seen and len(out) < MAX_STEPS:
        seen.add(key)
        out.append(made[key])
        key = text(made[key].get("parent"))
    return out[::-1]


def start_label(rd: RunData, steps: list[dict[str, Any]], key: str) -> str:
    """The Phase-1 candidate a lineage starts from (its seed label), else its key."""
    first = text(steps[0].get("parent")) if steps else key
    for e in rd.phase1:
        if text(e.get("key")) == first and text(e.get("label")):
            return text(e.get("label"))
    ini = rd.summary.initial
    if ini is not None and ini.key == first and ini.label:
        return ini.label
    return first[:16] or MISSING


def describe(rd: RunData, key: str) -> str:
    """``ok_1_naive → const_mult_shift_add → recipe_adder``: a state named by how it was reached."""
    steps = chain(rd, key)
    moves = [text(s.get("move")) or "?" for s in steps]
    return " → ".join([start_label(rd, steps, key), *moves])
