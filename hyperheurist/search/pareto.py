"""A Pareto archive of evaluated states on (area, delay, power), all minimised."""

from __future__ import annotations

from dataclasses import dataclass, field

from .state import Evaluation, State

OBJECTIVES = ("area_um2", "delay_ns", "power_mw")


def objectives(ev: Evaluation) -> tuple[float, float, float] | None:
    """The objective vector of a valid evaluation, or None when metrics are missing."""
    m = ev.metrics
    if not ev.valid or m is None:
        return None
    return m.area_um2, m.delay_ns, m.power_mw


def dominates(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """a is no worse than b everywhere and strictly better somewhere."""
    pairs = list(zip(a, b, strict=True))
    return all(x <= y for x, y in pairs) and any(x < y for x, y in pairs)


@dataclass
class ParetoArchive:
    """Non-dominated (State, Evaluation) pairs, in insertion order; equal points keep the first."""

    entries: list[tuple[State, Evaluation]] = field(default_factory=list)

    def add(self, state: State, ev: Evaluation) -> bool:
        """Insert if not dominated (and not a duplicate point); drop what it dominates."""
        point = objectives(ev)
        if point is None:
            return False
        for s, e in self.entries:
            other = objectives(e)
            if s.key == state.key or other == point or (other is not None and dominates(other, point)):
                return False
        self.entries = [(s, e) for s, e in self.entries if not dominates(point, objectives(e) or point)]
        self.entries.append((state, ev))
        return True

    def points(self) -> list[dict[str, str | float | None]]:
        """The archive as JSON rows: key, digest, cost and the three objectives."""
        out: list[dict[str, str | float | None]] = []
        for s, e in self.entries:
            point = objectives(e) or (None, None, None)
            out.append({"key": s.key, "digest": s.candidate.digest, "cost": e.cost,
                        **dict(zip(OBJECTIVES, point, strict=True))})
        return out
