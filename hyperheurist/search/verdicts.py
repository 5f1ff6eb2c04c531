"""Evaluations the annealer can put together from what it already knows, without running anything.

An RTL change's evaluation is two things: the gates' verdict (safety, compile, structure, simulation,
equivalence), which compares the proposal's RTL with its parent's and reads no recipe, and the PPA
estimate (synthesis, STA, power), which depends on the proposal's (RTL, recipe) only. A chain may
propose the same RTL change from the same parent RTL under another recipe (its recipe moved on); that
proposal's gates would give the verdict they gave, on the same pair, so it is not run again:

- the pair failed a gate: the proposal fails it too, whatever its recipe;
- the pair passed, and the proposal's state was estimated (any parent, or a recipe change): its
  evaluation is that estimate with the pair's proof.

A recipe change runs no gates: a state estimated before (as another chain's RTL change) is known.

The proof is the pair's own (the same two RTLs), never another parent's. A failure of a PPA stage or
of the tools depends on the recipe or the moment and is never reused.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..record.enums import FailedGate
from .state import Evaluation, State

RTL_GATES = frozenset({FailedGate.SAFETY, FailedGate.COMPILE, FailedGate.STRUCTURE, FailedGate.SIMULATION,
                       FailedGate.EQUIVALENCE})


@dataclass
class Verdicts:
    """Gate verdicts per (RTL, parent RTL) and PPA estimates per state, as evaluations came in."""

    pairs: dict[tuple[str, str], Evaluation] = field(default_factory=dict)
    estimates: dict[str, Evaluation] = field(default_factory=dict)  # state key -> a valid evaluation

    def add(self, state: State, parent: State | None, ev: Evaluation) -> None:
        if ev.valid and ev.metrics is not None:
            self.estimates.setdefault(state.key, ev)
        if parent is None or parent.candidate.digest == state.candidate.digest:
            return
        if ev.valid or ev.failed_gate in RTL_GATES:  # the gates' own verdict, not a PPA or tool failure
            self.pairs.setdefault((state.candidate.digest, parent.candidate.digest), ev)

    def compose(self, state: State, parent: State) -> Evaluation | None:
        """The evaluation ``state`` would get against ``parent`` when both halves are known; else None."""
        if state.candidate.digest == parent.candidate.digest:  # a recipe change runs no check
            known = self.estimates.get(state.key)
            return None if known is None else replace(known, proof=None, wall_s=0.0, cached=True)
        pair = self.pairs.get((state.candidate.digest, parent.candidate.digest))
        if pair is None:
            return None
        if not pair.valid:
            return replace(pair, key=state.key, wall_s=0.0, cached=True)
        estimate = self.estimates.get(state.key)
        if estimate is None:
            return None
        return replace(estimate, proof=pair.proof, wall_s=0.0, cached=True)
