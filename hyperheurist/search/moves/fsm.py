"""FSM state re-encoding in the RTL: localparam state codes -> binary, Gray or one-hot.

Applies to a group of at least three integer-literal localparams (one statement, or consecutive
statements of the same type) that a register is assigned from or compared with, when that register
and the codes are used only whole (case, ==/!=, assignment, ?: branch): then the codes are just
names and any injective encoding keeps the behaviour. The state registers are resized for one-hot.
State registers that are ports are left alone (the encoding would be visible).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

from ...hdl.ports import module_widths
from ..state import MoveContext
from .expr import Syntax, identifier, literal, replace
from .rtl import RtlMove
from .verilog import Edit, K, module_name, modules, node_text, nodes, walk

WHOLE_USE = {
    K.CaseStatement, K.StandardCaseItem, K.EqualityExpression, K.InequalityExpression,
    K.CaseEqualityExpression, K.CaseInequalityExpression, K.NonblockingAssignmentExpression,
    K.AssignmentExpression, K.ConditionalExpression, K.EqualsValueClause,
}
DECL_TYPE = re.compile(r"^(reg|logic|bit)\s*(\[\s*(\d+)\s*:\s*0\s*\])?$")
PARAM_TYPE = re.compile(r"^(\[\s*\d+\s*:\s*0\s*\])?$")


def encodings(n: int) -> dict[str, tuple[list[int], int]]:
    width = max(1, (n - 1).bit_length())
    return {"binary": (list(range(n)), width), "gray": ([i ^ (i >> 1) for i in range(n)], width),
            "one-hot": ([1 << i for i in range(n)], n)}


def _param_groups(mod: Syntax, text: str) -> list[list[Syntax]]:
    """Runs of localparam/body-parameter statements whose declarators all have literal values."""
    groups: list[list[Syntax]] = []
    run: list[Syntax] = []
    run_type: str | None = None
    for item in mod.members:
        decl = item.parameter if item.kind == K.ParameterDeclarationStatement else None
        if decl is None or decl.kind != K.ParameterDeclaration or not all(
                d.initializer is not None and literal(d.initializer.expr) is not None for d in nodes(decl.declarators)):
            if run:
                groups.append(run)
            run, run_type = [], None
            continue
        tt = (node_text(decl.type, text) or "").strip() if decl.type is not None else ""
        if run and tt != run_type:
            groups.append(run)
            run = []
        run.append(decl)
        run_type = tt
    if run:
        groups.append(run)
    return groups


def _port_names(mod: Syntax) -> set[str]:
    names: set[str] = set()
    for n in walk(mod.header):
        if n.kind == K.Declarator:
            names.add(n.name.valueText)
        if n.kind == K.IdentifierName:
            names.add(n.identifier.valueText)
    for n in walk(mod):
        if n.kind == K.PortDeclaration:
            names.update(d.name.valueText for d in walk(n) if d.kind == K.Declarator)
    return names


def _whole_use(r: Syntax) -> bool:
    """A use of the whole value that any injective re-encoding keeps: compared, assigned, a case
    subject, or named in a sensitivity list without an edge (any change wakes the block either way;
    ``posedge state`` watches one bit, which the encoding decides)."""
    if r.kind != K.IdentifierName or r.parent is None:
        return False
    if r.parent.kind == K.SignalEventExpression:
        return bool(r.parent.edge.kind.name == "Unknown" and r.parent.iffClause is None)
    return r.parent.kind in WHOLE_USE


def _copies(mod: Syntax) -> Iterator[tuple[str, str]]:
    """(target, source) of every plain ``a = b`` / ``a <= b`` between two names."""
    for n in walk(mod):
        if n.kind in (K.NonblockingAssignmentExpression, K.AssignmentExpression):
            target, source = identifier(n.left), identifier(n.right)
            if target is not None and source is not None and n.left.kind == n.right.kind == K.IdentifierName:
                yield target, source


def _group_site(mod: Syntax, text: str, decls: list[Syntax], rng: random.Random,
                widths: dict[str, int]) -> list[Edit] | None:
    """``widths``: the module's signal widths (``hdl.ports.module_widths``)."""
    declarators = [d for decl in decls for d in nodes(decl.declarators)]
    names = [d.name.valueText for d in declarators]
    values = [v[0] for d in declarators if (v := literal(d.initializer.expr)) is not None]
    if len(names) < 3 or len(set(values)) != len(values) or any(v < 0 for v in values):
        return None
    for decl in decls:
        if decl.type is not None and not PARAM_TYPE.match((node_text(decl.type, text) or "").strip()):
            return None  # integer/signed/other typed codes: leave alone
    code = set(names)
    refs = [n for n in walk(mod) if n.kind in (K.IdentifierName, K.IdentifierSelectName)]
    copies = list(_copies(mod))
    state_vars = {target for target, source in copies if source in code}
    grew = True
    while grew:  # registers copied from a state register hold state codes too (nxt -> state)
        grew = False
        for target, source in copies:
            if source in state_vars and target not in state_vars:
                state_vars.add(target)
                grew = True
    if not state_vars or state_vars & _port_names(mod):
        return None
    watched = code | state_vars
    if not all(_whole_use(r) for r in refs if r.identifier.valueText in watched):
        return None
    # the state registers' declarations: every declarator a state register, range [W-1:0]
    var_decls: list[Syntax] = []
    width: int | None = None
    for n in walk(mod):
        if n.kind == K.DataDeclaration and any(d.name.valueText in state_vars for d in nodes(n.declarators)):
            if not all(d.name.valueText in state_vars for d in nodes(n.declarators)):
                return None
            if DECL_TYPE.match((node_text(n.type, text) or "").strip()) is None:
                return None  # only a plain reg/logic/bit [N:0] declaration is rewritten in place
            w = widths.get(next(d.name.valueText for d in nodes(n.declarators)))
            if w is None:
                return None  # the module does not elaborate alone
            if width not in (None, w):
                return None
            width = w
            var_decls.append(n)
    if width is None or {d.name.valueText for n in var_decls for d in nodes(n.declarators)} != state_vars:
        return None
    choices = [(k, v, w) for k, (v, w) in encodings(len(names)).items() if v != values]
    if not choices:
        return None
    _, new_values, new_width = rng.choice(choices)
    if new_width < max(new_values).bit_length():
        return None
    edits = [replace(d.initializer.expr, f"{new_width}'b{v:0{new_width}b}")
             for d, v in zip(declarators, new_values, strict=True)]
    rng_text = f"[{new_width - 1}:0]"
    for decl in decls:
        dims = list(walk(decl.type)) if decl.type is not None else []
        dim = next((n for n in dims if n.kind == K.VariableDimension), None)
        if dim is not None:
            edits.append(replace(dim, rng_text))
    if new_width != width:
        for n in var_decls:
            dim = next((x for x in walk(n.type) if x.kind == K.VariableDimension), None)
            if dim is None:
                r = n.type.sourceRange
                edits.append(Edit(r.end.offset, r.end.offset, f" {rng_text}"))
            else:
                edits.append(replace(dim, rng_text))
    return edits


class FsmEncoding(RtlMove):
    """Re-encode an FSM's localparam state codes (binary, Gray, one-hot)."""

    name = "fsm_encoding"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        out = []
        every: dict[str, dict[str, int]] | None = None
        for mod in modules(tree):
            for group in _param_groups(mod, text):
                every = module_widths([tree], every=True) if every is None else every
                site = _group_site(mod, text, group, rng, every.get(module_name(mod), {}))
                if site is not None:
                    out.append(site)
        return out
