"""The tunable-parameter move: a new value for a parameter declared tunable in design.yaml."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ...candidate import Candidate
from ...config.search import Tunable
from ...hdl.literals import param_override
from ...hdl.parse import MAX_TEXT, modules_named, parse
from ..state import MoveContext, State
from .verilog import Edit, apply_edits, overridable_parameters, parameter_declarators, span

Params = tuple[tuple[str, str], ...]


def declared_parameters(files: tuple[tuple[str, str], ...], top: str) -> dict[str, str]:
    """Overridable parameters of the top module and their default value text."""
    for _, text in files:
        if len(text) > MAX_TEXT:
            continue
        for mod in modules_named(parse(text), top):
            return overridable_parameters(mod, text)
    return {}


def alternatives(cand: Candidate, tunables: Sequence[Tunable]) -> list[Params]:
    """The parameter overrides of every design one tunable change away: each tunable the top declares at
    each other listed value. An override equal to the declared default is dropped, so a design keeps one
    digest (and one evaluation). A tunable a fixed-widths move froze into a localparam (``specialise``) is
    not declared any more: no -chparam of it may follow."""
    if not tunables:
        return []
    declared = declared_parameters(cand.files, cand.top)
    overrides = dict(cand.params)
    out: list[Params] = []
    for t in tunables:
        if t.name not in declared:
            continue
        current = overrides.get(t.name, declared[t.name]).replace(" ", "")
        for value in (str(v) for v in t.values):
            if value == current:
                continue
            params = {**overrides, t.name: value}
            if value == declared[t.name].replace(" ", ""):
                del params[t.name]
            out.append(tuple(sorted(params.items())))
    return out


@dataclass(frozen=True)
class TunableParamMove:
    """Pick a tunable the candidate's top module declares and give it another listed value."""

    name: str = "tunable_param"
    kind: str = "param"

    def propose(self, state: State, ctx: MoveContext, rng: random.Random) -> State | None:
        options = alternatives(state.candidate, ctx.design.tunables)
        if not options:
            return None
        return State(state.candidate.with_params(dict(rng.choice(options)), move=self.name), state.recipe)


def bake_parameters(cand: Candidate) -> Candidate:
    """The same design with its parameter overrides written into the top module's defaults, so the
    sources alone (``hh gate``, another tool) give exactly the design that was scored. A value that is
    not a literal every tool reads alike raises LiteralError (a ValueError), as config would have."""
    if not cand.params:
        return cand
    want = dict(param_override(k, v) for k, v in cand.params)
    files = []
    for name, text in cand.files:
        edits: list[Edit] = []
        if len(text) <= MAX_TEXT:
            for mod in modules_named(parse(text), cand.top):
                for d in parameter_declarators(mod):
                    sp = span(d.initializer.expr, text) if d.initializer is not None else None
                    if d.name.valueText in want and sp is not None:
                        edits.append(Edit(sp[0], sp[1], want.pop(d.name.valueText)))
        files.append((name, apply_edits(text, edits) or text))
    if want:
        raise ValueError(f"cannot bake parameter(s) {', '.join(sorted(want))} into {cand.top}")
    return Candidate(files=tuple(files), top=cand.top, parent=cand.digest, move=cand.move, origin=cand.origin,
                     label=cand.label)
