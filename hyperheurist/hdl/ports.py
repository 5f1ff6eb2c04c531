"""Ports, parameters and signal widths of a module, read from pyslang's elaboration (exact widths after
parameter overrides, never regexed out of declaration text)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pyslang import SourceManager, ast, syntax

from .parse import elaborate, first_error, module_name, modules, where

DIRS = {"In": "input", "Out": "output", "InOut": "inout", "Ref": "ref"}


@dataclass(frozen=True)
class Port:
    name: str
    dir: str  # input / output / inout / ref
    width: int  # bits (0 for a type with no fixed width, such as an unpacked array)
    signed: bool
    where: str  # file:line of the declaration
    type: str = ""  # as pyslang prints it: ``logic[5:0]``, ``real``, ``logic[7:0]$[0:3]``
    integral: bool = True  # a bit vector (not real, string, unpacked array, ...)
    unpacked: bool = False  # an unpacked array port (``[7:0] d [0:3]``)


@dataclass(frozen=True)
class Parameter:
    name: str
    value: str  # the elaborated value, as pyslang prints it (``6``, ``8'd165``)
    width: int
    local: bool  # a localparam (not overridable)


@dataclass(frozen=True)
class ModuleView:
    ports: tuple[Port, ...]
    parameters: tuple[Parameter, ...]  # value parameters (type parameters are left out)
    widths: Mapping[str, int]  # every net and variable of the module body, in bits


class ElaborationError(ValueError):
    """The sources do not elaborate (pyslang's first error line: ``file:line:col: error: what``), or no such top."""


def direction(port: ast.PortSymbol) -> str:
    name = str(port.direction).split(".")[-1]
    return DIRS.get(name, name.lower())


def module_view(inst: ast.InstanceSymbol, sm: SourceManager) -> ModuleView:
    """The view of one elaborated instance (a top instance: the module with its parameter overrides)."""
    ports = []
    for p in inst.body.portList:
        if not isinstance(p, ast.PortSymbol):
            continue  # interface ports and multi-ports: not bit vectors either way
        t = p.type
        ports.append(Port(p.name, direction(p), int(t.bitWidth), bool(t.isSigned), where(sm, p.location), str(t),
                          bool(t.isIntegral), bool(t.isUnpackedArray)))
    params = [Parameter(p.name, str(p.value), int(p.type.bitWidth), bool(p.isLocalParam))
              for p in inst.body.parameters if isinstance(p, ast.ParameterSymbol)]
    widths = {m.name: int(m.type.bitWidth) for m in inst.body
              if isinstance(m, (ast.NetSymbol, ast.VariableSymbol)) and m.type.isIntegral}
    return ModuleView(tuple(ports), tuple(params), widths)


def module_widths(trees: Sequence[syntax.SyntaxTree], every: bool = False) -> dict[str, dict[str, int]]:
    """The one reader of signal widths: per module, the bit widths of its nets and variables (ports included)
    from a bounded elaboration at default parameters (``[W-1:0]``, ``integer``, ``$clog2`` as the tools
    read them). ``every``: each module of ``trees`` is elaborated as a top, also one another instantiates;
    otherwise only the modules none instantiates. A module that does not elaborate alone is absent."""
    tops = sorted({module_name(m) for t in trees for m in modules(t)}) if every else None
    sm = trees[0].sourceManager
    insts = elaborate(trees, tops).getRoot().topInstances
    return {str(inst.name): dict(module_view(inst, sm).widths) for inst in insts}


def top_widths(trees: Sequence[syntax.SyntaxTree]) -> dict[str, int]:
    """``module_widths`` of the top modules merged (names assumed unique across those modules)."""
    out: dict[str, int] = {}
    for widths in module_widths(trees).values():
        out.update(widths)
    return out


def read_module(trees: Sequence[syntax.SyntaxTree], top: str, params: Mapping[str, str] | None = None) -> ModuleView:
    """Elaborate trusted trees (from ``parse_files``) in process with ``top`` as the top module;
    ElaborationError when they do not elaborate cleanly or define no module ``top``."""
    declared = sorted({module_name(m) for t in trees for m in modules(t)})
    if top not in declared:
        raise ElaborationError(f"top module {top!r} not found (modules: {', '.join(declared) or 'none'})")
    comp = elaborate(trees, top, params)
    sm = trees[0].sourceManager
    error = first_error(comp, sm)
    if error is not None:
        raise ElaborationError(error)
    return module_view(next(i for i in comp.getRoot().topInstances if i.name == top), sm)
