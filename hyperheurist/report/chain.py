"""A design state named by how the run reached it: the accepted moves (journal ``step`` records,
``parent`` -> ``proposal``) from its Phase-1 start design.
"""

from __future__ import annotations

from ..record.entries import StepRecord
from .fmt import MISSING
from .rundata import RunData

MAX_STEPS = 10_000


def chain(rd: RunData, key: str) -> list[StepRecord]:
    """The ``step`` records from the start to ``key``, oldest first ([] for a start design)."""
    made: dict[str, StepRecord] = {}
    for st in rd.steps:  # the first accepted step that made each state; else the first that proposed it
        k = st.proposal
        if k and (k not in made or (st.accepted and not made[k].accepted)):
            made[k] = st
    out: list[StepRecord] = []
    seen: set[str] = set()
    while key in made and key not in seen and len(out) < MAX_STEPS:
        seen.add(key)
        out.append(made[key])
        key = made[key].parent
    return out[::-1]


def start_label(rd: RunData, steps: list[StepRecord], key: str) -> str:
    """The Phase-1 candidate a lineage starts from (its seed label), else its key."""
    first = steps[0].parent if steps else key
    for e in rd.phase1:
        if e.key == first and e.label:
            return e.label
    ini = rd.summary.initial
    if ini is not None and ini.key == first and ini.label:
        return ini.label
    return first[:16] or MISSING


def describe(rd: RunData, key: str) -> str:
    """``ok_1_naive → const_mult_shift_add → recipe_adder``: a state named by how it was reached."""
    steps = chain(rd, key)
    moves = [s.move or "?" for s in steps]
    return " → ".join([start_label(rd, steps, key), *moves])
