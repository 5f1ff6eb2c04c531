"""The deterministic RTL moves' common driver: find rewrite sites with pyslang, apply one, re-check.

A concrete move implements ``sites(text, tree, ctx)``: every alternative rewrite it could make in
one source file, each a list of non-overlapping ``Edit``s, and declares in ``requires`` what a file
must be for its width reasoning to hold (``unsigned``: no signed arithmetic; ``fixed-parameters``: no
overridable parameters; ``fixed-widths``: both). A move that needs fixed parameters sees each file
specialised (``specialise``: parameters frozen as localparams at the candidate's values), and its child is
built from that text, with the parameter overrides written in dropped from the candidate. ``propose`` picks
one site at random and only returns it when the result parses and elaborates with no more errors than the
original.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import replace
from typing import Literal

from ...candidate import Candidate
from ..state import MoveContext, State
from .expr import Syntax, fixed_parameters, fixed_widths, unsigned_only
from .params import alternatives
from .specialise import Specialised, specialise
from .verilog import MAX_TEXT, Edit, apply_edits, clean_rewrite, parse, syntax_errors

MAX_TRIES = 4  # sites checked per proposal (each check re-parses and elaborates)
MAX_NEIGHBOURS = 6  # rewrites one polishing round asks of a move (each is gated and proven)


class RtlMove(ABC):
    """Base class: subclasses set ``name`` and implement ``sites``."""

    name = "rtl"
    kind = "rtl"
    requires: Literal["any", "unsigned", "fixed-parameters", "fixed-widths"] = "any"

    def accepts(self, text: str, tree: Syntax) -> bool:
        """The file meets ``requires``."""
        if self.requires == "unsigned":
            return unsigned_only(text)
        if self.requires == "fixed-parameters":
            return fixed_parameters(tree)
        return self.requires == "any" or fixed_widths(text, tree)

    @abstractmethod
    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        """Every alternative rewrite of this file, each a list of edits."""

    def view(self, cand: Candidate, index: int) -> Specialised | None:
        """File ``index`` as this move reasons about it, with the overrides its child keeps: as written, or
        specialised for a move that needs fixed parameters (None: too large, or parameters that cannot be
        frozen)."""
        text = cand.files[index][1]
        if len(text) > MAX_TEXT:
            return None
        if self.requires in ("fixed-parameters", "fixed-widths"):
            return specialise(cand, index)
        return Specialised(text, cand.params)

    def propose(self, state: State, ctx: MoveContext, rng: random.Random) -> State | None:
        for option in self._options(state, ctx, rng)[:MAX_TRIES]:
            child = self._child(state, option)
            if child is not None:
                return child
        return None

    def neighbours(self, state: State, ctx: MoveContext, rng: random.Random) -> list[State]:
        """Up to ``MAX_NEIGHBOURS`` distinct clean rewrites, sites in random order (``search/polish.py``)."""
        out: dict[str, State] = {}
        for option in self._options(state, ctx, rng):
            child = self._child(state, option)
            if child is not None and child.key != state.key:
                out.setdefault(child.key, child)
                if len(out) == MAX_NEIGHBOURS:
                    break
        return list(out.values())

    def _options(self, state: State, ctx: MoveContext, rng: random.Random) -> list[tuple[Specialised, int, list[Edit]]]:
        """Every site in every file of every base design, shuffled."""
        cand = state.candidate
        options: list[tuple[Specialised, int, list[Edit]]] = []
        seen: set[tuple[int, str]] = set()
        for base in self.bases(cand, ctx):
            for i in range(len(cand.files)):
                view = self.view(base, i)
                if view is None or (i, view.text) in seen:
                    continue  # another tunable value that this file does not freeze: the same sites
                seen.add((i, view.text))
                tree = parse(view.text)
                if syntax_errors(tree) or not self.accepts(view.text, tree):
                    continue  # never rewrite what we cannot parse exactly
                options += [(view, i, site) for site in self.sites(view.text, tree, ctx, rng)]
        rng.shuffle(options)
        return options

    def _child(self, state: State, option: tuple[Specialised, int, list[Edit]]) -> State | None:
        view, i, site = option
        files = state.candidate.files
        new = apply_edits(view.text, site)
        others = [t for j, (_, t) in enumerate(files) if j != i]
        # against the file as written: the specialisation must not add errors either; a site that
        # changes nothing but the specialisation is no rewrite
        if new is None or new == view.text or not clean_rewrite(files[i][1], new, others):
            return None
        out = tuple((n, new if j == i else t) for j, (n, t) in enumerate(files))
        child = replace(state.candidate.with_sources(out, move=self.name), params=view.params)
        return State(child, state.recipe)

    def bases(self, cand: Candidate, ctx: MoveContext) -> list[Candidate]:
        """The designs whose sites this move offers: the candidate, and for a move that freezes parameters
        the candidate at each other listed value of a tunable too (``params.alternatives``). Freezing a
        tunable where the chain happens to stand trapped it there (measured on fir4: a rewrite at ARCH=0
        that pays nothing shut out ARCH=1, the better value); a child frozen at another value is that tunable
        change and the rewrite in one step, proven against the parent at its values like any RTL change."""
        if self.requires not in ("fixed-parameters", "fixed-widths") or ctx.design is None:
            return [cand]
        return [cand, *(replace(cand, params=p) for p in alternatives(cand, ctx.design.tunables))]


def line_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen a statement's span to its whole line when it stands alone there (tidy deletions)."""
    s = start
    while s > 0 and text[s - 1] in " \t":
        s -= 1
    e = end
    while e < len(text) and text[e] in " \t":
        e += 1
    if (s == 0 or text[s - 1] == "\n") and (e == len(text) or text[e] == "\n"):
        return s, min(len(text), e + 1)
    return start, end
