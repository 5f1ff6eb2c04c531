"""The deterministic RTL moves' common driver: find rewrite sites with pyslang, apply one, re-check.

A concrete move implements ``sites(text, tree, ctx)``: every alternative rewrite it could make in
one source file, each a list of non-overlapping ``Edit``s, and declares in ``requires`` what a file
must be for its width reasoning to hold (``unsigned``: no signed arithmetic; ``fixed-widths``: also
no overridable parameters). ``propose`` picks one site at random and only returns it when the result
parses and elaborates with no more errors than the original.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import Literal

from ..state import MoveContext, State
from .expr import Syntax, fixed_widths, unsigned_only
from .verilog import MAX_TEXT, Edit, apply_edits, clean_rewrite, parse, syntax_errors

MAX_TRIES = 4  # sites checked per proposal (each check re-parses and elaborates)


class RtlMove(ABC):
    """Base class: subclasses set ``name`` and implement ``sites``."""

    name = "rtl"
    kind = "rtl"
    requires: Literal["any", "unsigned", "fixed-widths"] = "any"

    def accepts(self, text: str, tree: Syntax) -> bool:
        """The file meets ``requires``."""
        if self.requires == "unsigned":
            return unsigned_only(text)
        return self.requires == "any" or fixed_widths(text, tree)

    @abstractmethod
    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        """Every alternative rewrite of this file, each a list of edits."""

    def propose(self, state: State, ctx: MoveContext, rng: random.Random) -> State | None:
        files = state.candidate.files
        options: list[tuple[int, list[Edit]]] = []
        for i, (_, text) in enumerate(files):
            if len(text) > MAX_TEXT:
                continue
            tree = parse(text)
            if syntax_errors(tree) or not self.accepts(text, tree):
                continue  # never rewrite what we cannot parse exactly
            options += [(i, site) for site in self.sites(text, tree, ctx, rng)]
        rng.shuffle(options)
        for i, site in options[:MAX_TRIES]:
            old = files[i][1]
            new = apply_edits(old, site)
            others = [t for j, (_, t) in enumerate(files) if j != i]
            if new is not None and clean_rewrite(old, new, others):
                out = tuple((n, new if j == i else t) for j, (n, t) in enumerate(files))
                return State(state.candidate.with_sources(out, move=self.name), state.recipe)
        return None


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
