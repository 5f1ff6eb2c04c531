"""What the search learned about recipe knobs from the mapped netlists they produced.

A recipe change whose mapped netlist (``ppa/nethash.py``'s structural digest) is one already seen
for the same RTL re-synthesises a known design: proposing it again wastes an evaluation. Inertness
is kept per (RTL, ``knob=value``): ``fsm_encoding=binary`` may change a netlist where ``one-hot`` does
not; and per knob over all RTL: a knob none of whose changes ever changed a netlist is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .state import Evaluation, State

INERT_GLOBAL = 2  # a knob whose changes left the netlist unchanged this often, and never changed it, is skipped


def netlist_of(ev: Evaluation) -> str | None:
    """The mapped netlist's structural digest, when the evaluation has one."""
    digest = ev.metrics.details.get("netlist_digest") if ev.metrics is not None else None
    return digest if isinstance(digest, str) else None


def recipe_change(old: State, new: State) -> str:
    """``knob=value`` for the recipe knobs ``new`` changes, comma-separated."""
    a, b = old.recipe.to_dict(), new.recipe.to_dict()
    return ",".join(f"{k}={b[k]}" for k in sorted(b) if a.get(k) != b[k])


def knobs_of(change: str) -> str:
    """``fsm_encoding=binary`` -> ``fsm_encoding``."""
    return ",".join(kv.split("=", 1)[0] for kv in change.split(","))


@dataclass
class NetlistMemory:
    """Mapped netlists seen per RTL digest, and the recipe changes that did not change one."""

    seen: dict[str, set[str]] = field(default_factory=dict)  # RTL digest -> netlist digests
    inert: set[tuple[str, str]] = field(default_factory=set)  # (RTL digest, knob=value change)
    knob_inert: dict[str, int] = field(default_factory=dict)  # knob -> changes that left the netlist as it was
    knob_live: dict[str, int] = field(default_factory=dict)  # knob -> changes that changed it

    def add(self, state: State, ev: Evaluation) -> None:
        net = netlist_of(ev)
        if net is not None:
            self.seen.setdefault(state.candidate.digest, set()).add(net)

    def skip(self, parent: State, proposal: State) -> bool:
        """This recipe change left this RTL's netlist unchanged before, or its knob never changed one."""
        change = recipe_change(parent, proposal)
        k = knobs_of(change)
        return (parent.candidate.digest, change) in self.inert or (
            self.knob_inert.get(k, 0) >= INERT_GLOBAL and not self.knob_live.get(k, 0))

    def learn(self, parent: tuple[State, Evaluation], proposal: tuple[State, Evaluation], recipe: bool) -> bool:
        """Record a valid proposal; True when it is a recipe change to a netlist already seen for its RTL."""
        (pstate, pev), (state, ev) = parent, proposal
        net, rtl = netlist_of(ev), pstate.candidate.digest
        repeat = recipe and net is not None and net in self.seen.get(rtl, ())
        if recipe and net is not None:
            change = recipe_change(pstate, state)
            same = net == netlist_of(pev)
            if repeat and same:
                self.inert.add((rtl, change))
            counts = self.knob_inert if same else self.knob_live
            counts[knobs_of(change)] = counts.get(knobs_of(change), 0) + 1
        self.add(state, ev)
        return repeat
