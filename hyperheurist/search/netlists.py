"""What the search learned about recipe knobs from the mapped netlists they produced.

A recipe change whose mapped netlist (``ppa/nethash.py``'s structural digest) equals its parent's
re-synthesises a known design: proposing it again wastes an evaluation. What is learnt is an equality:
"on this RTL, under these other knobs, ``knob=a`` and ``knob=b`` map to the same netlist", kept in classes
of equal values (equality is symmetric and transitive: share=False equal to True also answers the way
back). It is not carried to other knob settings: the knobs interact (``-D`` is ignored by ``map -a`` and
acts in ``map``; on mac16's ok_1_naive ``opt_full`` changes ABC's input, and the mapped netlist under the
``area`` script but not under ``default``). One inference follows from what a delay target is: a target
ABC cannot meet maps for minimum delay, as no target does, so a target equal to none is equal to none
for every tighter target too (under the same other knobs: another script is another mapper).

Over an RTL family (a start RTL and the RTL moves made from it: local edits that keep the structures a
knob acts on), a knob that never changed a netlist under the same other knobs is not proposed again there
for a value already shown equal to another one (nor for one another chain tries in the same batch). What
is predicted holds for the exact recipe context it was seen in, as the equalities do: a delay target inert
under the default ABC script said nothing about ``delay``/``resyn2`` with a target (a family-wide
prediction left 70 of 80 steps of one design without a proposal; on 8 of 38 pairs of a held-out suite the
previous version's best recipe, applied to the unchanged start, beat the run).
Every value gets its own trial (traffic_fsm's best needs ``fsm_encoding=binary`` where ``one-hot`` changes
nothing) and every family its own (fir4's ``opt_full`` changes nothing on one seed and gives the best on
another).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..recipe import KnobValue
from .state import Evaluation, State

DELAY_TARGET = "abc_delay_target_ps"


def netlist_of(ev: Evaluation) -> str | None:
    """The mapped netlist's structural digest, when the evaluation has one."""
    digest = ev.metrics.details.get("netlist_digest") if ev.metrics is not None else None
    return digest if isinstance(digest, str) else None


def changed_knob(old: State, new: State) -> tuple[str, KnobValue, KnobValue] | None:
    """(knob, old value, new value) when ``new`` changes exactly one recipe knob of ``old``'s RTL."""
    if old.candidate.digest != new.candidate.digest:
        return None
    # every field, not to_dict: that leaves knobs at their default out, so a move back to it would not show
    a, b = old.recipe.model_dump(), new.recipe.model_dump()
    diff = [k for k in sorted(b) if a[k] != b[k]]
    return (diff[0], a[diff[0]], b[diff[0]]) if len(diff) == 1 else None


def others(state: State, knob: str) -> str:
    """The recipe context of ``knob`` in ``state``: its other knobs' values."""
    return json.dumps({k: v for k, v in state.recipe.to_dict().items() if k != knob}, sort_keys=True)


def context(state: State, knob: str) -> str:
    """Where an equality of ``knob``'s values was seen, and holds: the RTL under the same other knobs."""
    return f"{state.candidate.digest}|{others(state, knob)}"


def _unmet(value: KnobValue, targets: set[int]) -> bool:
    """``value`` is no target, or a delay target no looser than one shown equal to no target."""
    return value is None or (isinstance(value, int) and any(value <= t for t in targets))


@dataclass
class NetlistMemory:
    """Mapped netlists seen per RTL digest, and the knob values shown to map to the same netlist."""

    seen: dict[str, set[str]] = field(default_factory=dict)  # RTL digest -> netlist digests
    # (context, knob) -> classes of values shown to give one netlist there
    equal: dict[tuple[str, str], list[set[KnobValue]]] = field(default_factory=dict)
    # (context, knob) -> delay targets shown equal to no target (every tighter one is too)
    unmet: dict[tuple[str, str], set[int]] = field(default_factory=dict)
    family: dict[str, str] = field(default_factory=dict)  # RTL digest -> the start RTL it descends from
    # per (family (start RTL digest) | the other knobs, ``_kin``) and knob: values in some equality, delay
    # targets equal to none, knobs that changed a netlist, never-live knob values asked in this batch
    inert_values: dict[tuple[str, str], set[KnobValue]] = field(default_factory=dict)
    unmet_in_kin: dict[str, set[int]] = field(default_factory=dict)
    live: set[tuple[str, str]] = field(default_factory=set)
    asking: set[tuple[str, str, KnobValue]] = field(default_factory=set)

    def adopt(self, child: State, parent: State) -> None:
        """``child``'s RTL descends from ``parent``'s (an RTL move): it joins the parent's family."""
        p = parent.candidate.digest
        self.family.setdefault(child.candidate.digest, self.family.get(p, p))

    def _kin(self, state: State, knob: str) -> str:
        """Where a prediction about ``knob`` holds: ``state``'s RTL family under the same other knobs."""
        return f"{self.family.get(state.candidate.digest, state.candidate.digest)}|{others(state, knob)}"

    def add(self, state: State, ev: Evaluation) -> None:
        net = netlist_of(ev)
        if net is not None:
            self.seen.setdefault(state.candidate.digest, set()).add(net)

    def _same(self, where: tuple[str, str], a: KnobValue, b: KnobValue) -> bool:
        if any(a in c and b in c for c in self.equal.get(where, ())):
            return True
        if where[1] == DELAY_TARGET:  # both no target or unmet: ABC maps for minimum delay in each
            unmet = self.unmet.get(where, set())
            return _unmet(a, unmet) and _unmet(b, unmet)
        return False

    def gives_back(self, parent: State, proposal: State) -> bool:
        """The proposal's one knob change is known to give the parent's netlist back (no prediction)."""
        change = changed_knob(parent, proposal)
        return change is not None and self._same((context(parent, change[0]), change[0]), change[1], change[2])

    def skip(self, parent: State, proposal: State) -> bool:
        """The proposal's one knob change is known (``gives_back``) or, never having changed any netlist,
        predicted to give the parent's netlist back."""
        change = changed_knob(parent, proposal)
        if change is None:
            return False
        if self.gives_back(parent, proposal):
            return True
        knob, new = change[0], change[2]
        fam = self._kin(parent, knob)
        return (fam, knob) not in self.live and (self._covered(fam, knob, new) or (fam, knob, new) in self.asking)

    def ask(self, parent: State, proposal: State) -> None:
        """``proposal`` goes into this batch: another chain trying the same value of a never-live knob on the
        same family in the same batch would spend a second evaluation on the same question."""
        change = changed_knob(parent, proposal)
        if change is None:
            return
        fam = self._kin(parent, change[0])
        if (fam, change[0]) not in self.live:
            self.asking.add((fam, change[0], change[2]))

    def _covered(self, fam: str, knob: str, value: KnobValue) -> bool:
        """``value`` of a knob never live in this family (under these other knobs) was already shown equal to
        another value there."""
        unmet = self.unmet_in_kin.get(fam, set())
        if knob == DELAY_TARGET and unmet and _unmet(value, unmet):
            return True
        return value in self.inert_values.get((fam, knob), set())

    def learn(self, parent: tuple[State, Evaluation], proposal: tuple[State, Evaluation], recipe: bool) -> bool:
        """Record a valid proposal; True when it is a recipe change to a netlist already seen for its RTL."""
        (pstate, pev), (state, ev) = parent, proposal
        net, rtl = netlist_of(ev), pstate.candidate.digest
        repeat = recipe and net is not None and net in self.seen.get(rtl, ())
        change = changed_knob(pstate, state) if recipe else None
        if change is not None and net is not None:
            knob, old, new = change
            fam = self._kin(pstate, knob)
            if net == netlist_of(pev):
                self._record_equal((context(pstate, knob), knob), old, new, fam)
                self.inert_values.setdefault((fam, knob), set()).update((old, new))
            else:
                self.live.add((fam, knob))
        self.add(state, ev)
        return repeat

    def _record_equal(self, where: tuple[str, str], a: KnobValue, b: KnobValue, fam: str) -> None:
        classes = self.equal.setdefault(where, [])
        joined = {a, b}.union(*[c for c in classes if a in c or b in c])
        classes[:] = [c for c in classes if not (a in c or b in c)] + [joined]
        if where[1] == DELAY_TARGET and None in joined:
            targets = {t for t in joined if isinstance(t, int)}
            self.unmet.setdefault(where, set()).update(targets)
            self.unmet_in_kin.setdefault(fam, set()).update(targets)
