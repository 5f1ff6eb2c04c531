"""Parameter specialisation: a file with its parameters frozen at the values this candidate is built with.

Moves that reason about declared widths (``requires = "fixed-widths"``) cannot work on a module a caller
could re-parameterise. But a candidate's values are known for the run: the top module's are the defaults
written in its text unless ``Candidate.params`` (what tunable_param sets; synthesis passes it as
``-chparam``, the gates as ``-P``/``-G``/``defparam``) overrides them, and a module below it gets its
defaults when no instance assigns its parameters. Specialising writes those values in: every overridable
parameter becomes a ``localparam`` (an override's value replaces the default), so a move reasons about the
widths that are built, and its child carries the specialisation: what was reasoned about is what is built.
The child is proven against its parent, at the parent's values, by the evaluation pipeline.

The rules, and why:
- An override written into the top module leaves ``Candidate.params``: Yosys' ``-chparam`` of a localparam
  is an error and iverilog's ``-P`` silently ignores it. A tunable (design.yaml ``tunables:``) is then frozen
  on this lineage: tunable_param offers only parameters the top still declares overridable. So that the
  value the chain stood on is not the only one a rewrite can freeze, RtlMove also offers the rewrite at the
  tunable's other listed values (``RtlMove.bases``).
- A parameter whose default is an expression of others (``B = 2 * A``, ``AW = $clog2(DEPTH)``) keeps its
  expression: once every parameter it reads is frozen it is a constant, evaluated as before.
- A module below the top is frozen at its defaults only when no instance in any file assigns its
  parameters (``#(...)``) and no ``defparam`` exists: otherwise its instances may differ, and the file is
  left alone (specialising per instance would mean uniquifying modules).
- What cannot be frozen exactly leaves the file alone: a parameter without default or override, a type
  parameter given an override, a declaration from a macro.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ...candidate import Candidate
from ...hdl.literals import LiteralError, param_override
from .verilog import (
    MAX_TEXT,
    Edit,
    K,
    Syntax,
    apply_edits,
    module_name,
    modules,
    nodes,
    overridable_declarations,
    parse,
    span,
    walk,
)

Params = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Specialised:
    """One file as a fixed-widths move sees it, and the parameter overrides its child keeps."""

    text: str
    params: Params


def specialise(cand: Candidate, index: int) -> Specialised | None:
    """File ``index`` of ``cand`` with every overridable parameter frozen at its value in effect (the file
    itself when it has none), or None when some parameter cannot be frozen exactly."""
    return _specialise_all(cand.files, cand.top, cand.params)[index]


@lru_cache(maxsize=32)  # the annealer asks every fixed-widths move about the same state in turn
def _specialise_all(files: tuple[tuple[str, str], ...], top: str, params: Params) -> tuple[Specialised | None, ...]:
    trees = [parse(text) if len(text) <= MAX_TEXT else None for _, text in files]
    pinned = _assigned_modules([t for t in trees if t is not None])
    try:
        overrides: dict[str, str] | None = dict(param_override(k, v) for k, v in params)
    except LiteralError:
        overrides = None  # the gates refuse such a value anyway; nothing is frozen at it
    return tuple(_specialise_file(text, tree, top, params, overrides, pinned) if tree is not None else None
                 for (_, text), tree in zip(files, trees, strict=True))


def _specialise_file(text: str, tree: Syntax, top: str, params: Params, overrides: dict[str, str] | None,
                     pinned: set[str] | None) -> Specialised | None:
    edits: list[Edit] = []
    frozen: set[str] = set()
    for mod in modules(tree):
        decls = overridable_declarations(mod)
        if not decls:
            continue
        name = module_name(mod)
        if pinned is None or name in pinned:
            return None
        values = {} if name != top else overrides
        if values is None:
            return None
        mod_edits = _freeze(decls, text, values)
        if mod_edits is None:
            return None
        edits += mod_edits
        frozen |= {n for n in values if n in _declared(decls)}
    new = apply_edits(text, edits)
    return None if new is None else Specialised(new, tuple((k, v) for k, v in params if k not in frozen))


def _assigned_modules(trees: list[Syntax]) -> set[str] | None:
    """Names of modules some instance assigns parameters to; None when a ``defparam`` may reach any."""
    out: set[str] = set()
    for tree in trees:
        for n in walk(tree.root):
            if n.kind == K.DefParam:
                return None
            if n.kind == K.HierarchyInstantiation and n.parameters is not None:
                out.add(n.type.valueText)
    return out


def _declared(decls: list[Syntax]) -> set[str]:
    return {d.name.valueText for decl in decls for d in nodes(decl.declarators)}


def _freeze(decls: list[Syntax], text: str, values: dict[str, str]) -> list[Edit] | None:
    """Edits making each declaration a ``localparam`` at its value in effect, or None."""
    edits: list[Edit] = []
    for decl in decls:
        kw = decl.keyword
        if kw.kind.name == "ParameterKeyword":
            s, e = int(kw.range.start.offset), int(kw.range.end.offset)
            if text[s:e] != "parameter":
                return None  # the keyword comes from a macro
            edits.append(Edit(s, e, "localparam"))
        else:  # a port-list entry inheriting ``parameter``: it gets its own keyword
            sp = span(decl, text)
            if sp is None:
                return None
            edits.append(Edit(sp[0], sp[0], "localparam "))
        for d in nodes(decl.declarators):
            name = d.name.valueText
            if d.kind == K.TypeAssignment:
                if name in values or d.assignment is None:
                    return None
                continue
            if name in values:
                old = span(d.initializer.expr, text) if d.initializer is not None else None
                whole = span(d, text)
                if old is not None:
                    edits.append(Edit(old[0], old[1], values[name]))
                elif d.initializer is None and whole is not None:
                    edits.append(Edit(whole[1], whole[1], f" = {values[name]}"))
                else:
                    return None
            elif d.initializer is None:
                return None  # no default and no value for this run: nothing to freeze it at
    return edits
