"""What the annealer counts: per move, and over the run (the summary and the report read them)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class MoveStats:
    proposals: int = 0
    valid: int = 0
    invalid: int = 0
    accepted: int = 0
    improvements: int = 0
    not_applicable: int = 0
    credit: float = 0.0

    def to_dict(self) -> dict[str, float]:
        return {**asdict(self), "credit": round(self.credit, 6)}


@dataclass
class Counters:
    """Run totals; ``invalid`` counts rejected proposals by the gate that rejected them."""

    iterations: int = 0
    proposals: int = 0
    evaluations: int = 0
    memo_hits: int = 0
    accepted: int = 0
    improvements: int = 0
    not_applicable: int = 0
    reheats: int = 0
    restarts: int = 0
    inert_skips: int = 0  # recipe changes known or predicted to give the parent's netlist back
    known_skips: int = 0  # proposals already evaluated against this parent, whose rejection is certain
    verdict_reuse: int = 0  # RTL changes not evaluated: their gates' verdict on this RTL pair was known
    polish_evaluations: int = 0  # of ``evaluations``, those of the greedy finish (``polish.py``)
    polish_steps: int = 0  # its rounds that found a cheaper neighbour of where they stood
    polish_improvements: int = 0  # those that gave a new best state
    invalid: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, int | dict[str, int]]:
        return {**asdict(self), "invalid": dict(sorted(self.invalid.items()))}
