"""The tunable-parameter move: a new value for a parameter declared tunable in design.yaml."""

from __future__ import annotations

import random
from dataclasses import dataclass

from ...candidate import Candidate
from ...hdl.literals import param_override
from ...hdl.parse import MAX_TEXT, module_name, modules, parse
from ..state import MoveContext, State
from .verilog import Edit, apply_edits, overridable_parameters, parameter_declarators, span


def declared_parameters(files: tuple[tuple[str, str], ...], top: str) -> dict[str, str]:
    """Overridable parameters of the top module and their default value text."""
    for _, text in files:
        if len(text) > MAX_TEXT:
            continue
        for mod in modules(parse(text)):
            if module_name(mod) == top:
                return overridable_parameters(mod, text)
    return {}


@dataclass(frozen=True)
class TunableParamMove:
    """Pick a tunable the candidate's top module declares and give it another listed value."""

    name: str = "tunable_param"
    kind: str = "param"

    def propose(self, state: State, ctx: MoveContext, rng: random.Random) -> State | None:
        tunables = ctx.design.tunables
        if not tunables:
            return None
        cand = state.candidate
        declared = declared_parameters(cand.files, cand.top)
        overrides = dict(cand.params)
        options: list[tuple[str, str]] = []
        for t in tunables:
            if t.name not in declared:
                continue  # only when this candidate declares the parameter (one a fixed-widths move froze
                # into a localparam, ``specialise``, is not: no -chparam of it may follow)
            current = overrides.get(t.name, declared[t.name])
            options += [(t.name, str(v)) for v in t.values if str(v) != current.replace(" ", "")]
        if not options:
            return None
        name, value = rng.choice(options)
        params = {**overrides, name: value}
        if value == declared[name].replace(" ", ""):  # back to the declared default: the design without the
            del params[name]  # override, so the same design keeps one digest (and one evaluation)
        return State(cand.with_params(params, move=self.name), state.recipe)


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
            for mod in modules(parse(text)):
                if module_name(mod) != cand.top:
                    continue
                for d in parameter_declarators(mod):
                    sp = span(d.initializer.expr, text) if d.initializer is not None else None
                    if d.name.valueText in want and sp is not None:
                        edits.append(Edit(sp[0], sp[1], want.pop(d.name.valueText)))
        files.append((name, apply_edits(text, edits) or text))
    if want:
        raise ValueError(f"cannot bake parameter(s) {', '.join(sorted(want))} into {cand.top}")
    return Candidate(files=tuple(files), top=cand.top, parent=cand.digest, move=cand.move, origin=cand.origin,
                     label=cand.label)
