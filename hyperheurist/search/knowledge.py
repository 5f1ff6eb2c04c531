"""What one annealing run knows about states without evaluating anything more.

Evaluations by memo key; gate verdicts per RTL pair and estimates per state (``verdicts.py``); what
recipe knobs did to the netlist (``netlists.py``); moves that found nothing to do on a state; the
valid states visited and those on which a chain ran out of proposals. All of it is filled from
evaluations in the order the annealer receives them, so a resumed run rebuilds it exactly.
What a state's own synthesis log said (``cannot_act``) travels in its journalled evaluation.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, field

from ..ppa.metrics import PPAMetrics
from ..ppa.synth import SynthFacts, SynthFactsDict
from ..ppa.techmap import TECHMAPS
from ..recipe import KnobValue, Recipe
from .netlists import NetlistMemory, netlist_of
from .state import Evaluation, Move, State
from .verdicts import Verdicts

Scored = tuple[State, Evaluation]


def usable(ev: Evaluation) -> bool:
    """Only valid, scored evaluations may become current or best."""
    return ev.valid and ev.cost is not None and math.isfinite(ev.cost)


def failed_gate(ev: Evaluation) -> str:
    """Why an evaluation is not ``usable``: the gate it failed, or what it lacks."""
    return ev.failed_gate or ("unscored" if ev.valid else "unknown")


def cost_of(ev: Evaluation) -> float:
    """The cost of a usable evaluation (``usable`` is checked first)."""
    if ev.cost is None:
        raise ValueError(f"evaluation {ev.key} has no cost")
    return ev.cost


def memo_key(state: State, parent: State) -> str:
    """What an evaluation is remembered by. An RTL change is judged against its parent (the gates and the
    equivalence proof compare the two), so its evaluation holds for that parent only: reusing it for
    another parent would accept a change never checked against it. A recipe-only change of the parent's
    RTL runs no check, so its evaluation holds whatever the parent."""
    if state.candidate.digest == parent.candidate.digest:
        return state.key
    return f"{state.key}<{parent.key}"


def facts_of(metrics: PPAMetrics | None) -> SynthFacts | None:
    """What the synthesis log of an estimate said (``ppa/synth.py``); None for an estimate without them."""
    raw = metrics.details.get("synth_facts") if metrics is not None else None
    if not isinstance(raw, dict):
        return None
    facts: SynthFactsDict = {"fsm_state_registers": raw.get("fsm_state_registers"),
                             "fsm_auto_encodings": list(raw.get("fsm_auto_encodings") or ()),
                             "share_candidates": raw.get("share_candidates"),
                             "techmap_cells": raw.get("techmap_cells"), "multipliers": raw.get("multipliers"),
                             "alu_cells": raw.get("alu_cells"), "adder_cells": raw.get("adder_cells")}
    return SynthFacts.from_dict(facts)


def cannot_act(metrics: PPAMetrics | None, recipe: Recipe, knob: str, value: KnobValue) -> bool:
    """Setting ``knob`` to ``value`` on a state synthesised with ``recipe`` (``metrics``: its estimate) gives
    its netlist back, as its synthesis log shows: no FSM follows the encoding knob (none found, or each has
    the user's ``fsm_encoding`` attribute), or ``auto`` chose ``value`` for each (``fsm -encoding`` only sets
    what ``auto`` maps to); ``share`` had fewer than two candidate cells (it then changes nothing); the one
    techmap knob set (``multiplier``/``adder``) was offered no cell, or ``alumacc`` met no ``$mul`` (under
    Yosys' own mapping) or made no ``$alu``/``$macc``, so no value of it can map any; ``adder_cells`` is
    on and ``extract_fa`` found no adder (turning it off gives the same cells). The passes
    before the knob's own see the same design, so these facts hold for this RTL under the state's other
    knobs; an RTL move's result is judged by its own evaluation's facts, never by its parent's."""
    facts = facts_of(metrics)
    if facts is None:
        return False
    if knob == "fsm_encoding" and facts.fsm_state_registers is not None:
        if facts.fsm_state_registers == 0 or not facts.fsm_auto_encodings:
            return True
        return recipe.fsm_encoding == "auto" and all(e == value for e in facts.fsm_auto_encodings)
    if knob == "share" and facts.share_candidates is not None:
        return facts.share_candidates < 2
    if knob == "adder" and facts.alu_cells == 0:
        return True  # no carry tree to map
    if knob == "adder_cells" and recipe.adder_cells and facts.adder_cells == 0:
        return True  # extract_fa found no adder here: the knob only renumbered Yosys' names
    if knob == "multiplier" and recipe.multiplier == "yosys" and facts.multipliers == 0:
        return True  # no $mul at all (under another value, the count is of those its map left)
    if knob in TECHMAPS and facts.techmap_cells == 0:
        # our one map took nothing: no $alu for the adder maps (any value), no $mul for the multiplier's
        # (wallace's selection holds booth's); reading it only renumbered Yosys' names
        mapped = [k for k in TECHMAPS if recipe.model_dump()[k] != "yosys"]
        return mapped == [knob] and (knob == "adder" or value == "yosys" or recipe.multiplier == "wallace")
    return False


def place(state: State, ev: Evaluation) -> str:
    """Where a state is, for restarts: its mapped netlist (its key when it has none)."""
    return netlist_of(ev) or state.key


def where_inapplicable(move: Move, state: State) -> str:
    """What a move's finding nothing depends on: RTL and parameter moves read the design only (a recipe
    change leaves their answer as it was), recipe moves the recipe, and an LLM may answer another time."""
    return state.candidate.digest if move.kind in ("rtl", "param") else state.key


@dataclass
class Knowledge:
    memo: dict[str, Evaluation] = field(default_factory=dict)
    composed: set[str] = field(default_factory=set)  # memo keys put together by ``verdicts`` (never run)
    verdicts: Verdicts = field(default_factory=Verdicts)
    netlists: NetlistMemory = field(default_factory=NetlistMemory)
    inapplicable: set[tuple[str, str]] = field(default_factory=set)  # (move, where_inapplicable): no proposal
    visited: dict[str, Scored] = field(default_factory=dict)  # netlist digest -> the first valid state giving it
    estimates: dict[str, Evaluation] = field(default_factory=dict)  # state key -> a usable evaluation of it
    exhausted: set[str] = field(default_factory=set)  # state keys a chain had nothing left to propose from
    # (parent key, child key) judged and rejected: proposing that child from that parent again only redraws
    # a lottery already drawn (a deterministic rewrite offered it up to 37 times in one run), so it is tabu
    rejected: set[tuple[str, str]] = field(default_factory=set)

    def record(self, state: State, parent: State | None, ev: Evaluation) -> None:
        """An evaluation of ``state`` (a start when ``parent`` is None) came in."""
        self.memo.setdefault(state.key if parent is None else memo_key(state, parent), ev)
        self.verdicts.add(state, parent, ev)
        if parent is None:  # a proposal's netlist is learnt when it is judged (``NetlistMemory.learn``)
            self.netlists.add(state, ev)
        self._visit(state, ev)

    def _visit(self, state: State, ev: Evaluation) -> None:
        """Keep the first valid state of each mapped netlist (states equal to it are no other place to be)."""
        if not usable(ev):
            return
        self.estimates.setdefault(state.key, ev)
        net = place(state, ev)
        if net not in self.visited:
            self.visited[net] = (state, ev)

    def known(self, state: State, parent: State) -> Evaluation | None:
        """What ``state`` got against ``parent``, or would get: evaluated, or put together."""
        return self.memo.get(memo_key(state, parent)) or self.verdicts.compose(state, parent)

    def settle(self, state: State, parent: State) -> bool:
        """Put ``state``'s evaluation against ``parent`` together when it can be; True when it was."""
        ev = self.verdicts.compose(state, parent)
        if ev is None:
            return False
        key = memo_key(state, parent)
        self.memo[key] = ev
        self.composed.add(key)
        self._visit(state, ev)
        return True

    def certain_rejection(self, current: Scored, recipe: bool, new: State, held: Collection[str] = ()) -> bool:
        """``new``'s outcome against ``current`` is known and the annealer must reject it: invalid, a recipe
        change back to a netlist seen for this RTL at no gain, or a child rejected from this parent before; or
        accepting it would be no step (``sideways_back``: ``held`` are the keys the chain stood on)."""
        parent, parent_ev = current
        if self.sideways_back(held, current, new):
            return True
        if (parent.key, new.key) in self.rejected:
            return True
        ev = self.known(new, parent)
        if ev is None:
            return False
        if not usable(ev):
            return True
        net = netlist_of(ev)
        return (recipe and net is not None and net in self.netlists.seen.get(parent.candidate.digest, ())
                and cost_of(ev) >= cost_of(parent_ev))

    def sideways_back(self, held: Collection[str], current: Scored, new: State) -> bool:
        """``new`` is a state the chain stood on before, at the known cost of where it stands: accepting it only
        undoes a rewrite (traffic_fsm's chain went between two RTL forms of one netlist for 15 of 40 iterations)."""
        if new.key not in held:
            return False
        ev = self.estimate(new)  # its cost, whichever parent it was checked against (skipping is no verdict)
        return ev is not None and cost_of(ev) == cost_of(current[1])

    def estimate(self, state: State) -> Evaluation | None:
        """A usable evaluation of ``state`` (its PPA and cost), against whichever parent."""
        return self.estimates.get(state.key)

    def restart_from(self, held: set[str]) -> Scored | None:  # held: the chains' netlists
        """The cheapest mapped netlist found that no chain holds, by the first valid state that gave it, unless
        a chain ran out of proposals there."""
        options = [se for net, se in self.visited.items() if net not in held and se[0].key not in self.exhausted]
        return min(options, key=lambda se: cost_of(se[1])) if options else None  # min keeps the first of equals
