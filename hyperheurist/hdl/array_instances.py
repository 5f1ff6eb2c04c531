"""Instances of modules whose unpacked array ports ``hdl.arrays`` made packed vectors: each array connected
to such a port is packed into (input) or unpacked from (output) a fresh vector at the instance::

    sub u (.x(arr), .y(res));   ->  wire [N*W-1:0] hh_conn_u_x; ... assign hh_conn_u_x[i*W +: W] = arr[idx(i)];
                                    wire [N*W-1:0] hh_conn_u_y; ... assign res[idx(i)] = hh_conn_u_y[i*W +: W];
                                    sub u (.x(hh_conn_u_x), .y(hh_conn_u_y));

Element ``i`` counted from the connected array's declared left bound goes to element ``i`` counted from the
port's left bound (SystemVerilog connects unpacked arrays left to right), which the port's rewrite puts at bits
``[(i+1)*W-1 : i*W]``; widths and bounds are the connected array's own expressions, in the parent's scope.
The connected array is an unpacked array the parent declares, or one of its own array ports (then its private
copy, ``hh_unpacked_<name>``).

Refused with one line naming file:line: a connection that is not a whole array by name (a slice, an element,
an expression), ``.*``, instance arrays, an instance that is the bare body of a generate ``if``/``for`` (the
packing code needs the instance's scope: ``begin ... end``), and sizes or widths that plainly differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pyslang import SourceManager

from .array_decls import (
    PREFIX,
    ArrayPort,
    ArrayPortError,
    ModuleArrays,
    bounds,
    first_offset,
    index,
    num,
    product,
    size,
    vector_width,
)
from .parse import K, Syntax, module_name, nodes, walk, where

CONN = "hh_conn_"
_SCOPES = {K.ModuleDeclaration, K.GenerateBlock, K.GenerateRegion}
_WRAPPERS = {K.SimplePropertyExpr, K.SimpleSequenceExpr}  # pyslang parses a connection as a property


@dataclass(frozen=True)
class Elements:
    """An unpacked array of the parent as the packing code names it."""

    name: str
    width: str
    left: str
    right: str


def local_arrays(mod: Syntax, own: list[ArrayPort], sm: SourceManager) -> dict[str, Elements | str]:
    """The parent's arrays by name: their elements, or why one cannot be packed (a string)."""
    out: dict[str, Elements | str] = {a.name: Elements(f"{PREFIX}{a.name}", a.width, a.left, a.right) for a in own}
    seen: set[str] = set(out)
    for n in walk(mod):
        if n.kind not in (K.DataDeclaration, K.NetDeclaration):
            continue
        for d in nodes(n.declarators):
            name, at = d.name.valueText, where(sm, d.name.location)
            if name in seen:  # declared in several generate scopes: which one a connection names is not plain
                out[name] = f"{at}: `{name}` is declared more than once in {module_name(mod)}"
                continue
            seen.add(name)
            if not len(d.dimensions):
                out[name] = f"{at}: `{name}` is not an unpacked array"
                continue
            try:
                left, right = bounds(d, at, "array")
                out[name] = Elements(name, vector_width(n.type, f"{at}: array `{name}`"), left, right)
            except ArrayPortError as exc:
                out[name] = str(exc)
    return out


def _differ(a: str, b: str) -> bool:
    x, y = num(a), num(b)
    return x is not None and y is not None and x != y


def _code(wire: str, port: ArrayPort, arr: Elements) -> str:
    """The vector for one connection and its copy from (input port) or to (output port) the array."""
    i, w = f"{wire}_i", arr.width
    bits, elem = f"{wire}[{i}*{w} +: {w}]", f"{arr.name}[{index(arr.left, arr.right, i)}]"
    copy = f"assign {bits} = {elem};" if port.dir == "input" else f"assign {elem} = {bits};"
    return (f" wire [{product([size(arr.left, arr.right), w])}-1:0] {wire}; genvar {i}; "
            f"for ({i} = 0; {i} < {size(arr.left, arr.right)}; {i} = {i} + 1) begin : {wire}_g {copy} end")


def connection_edits(mod: Syntax, flat: Mapping[str, ModuleArrays], locals_: dict[str, Elements | str],
                     sm: SourceManager) -> tuple[list[tuple[int, int, str]], list[str]]:
    """(edits packing every array connected to a flattened port of an instance in ``mod``, the names they
    declare); ArrayPortError for a connection they cannot take."""
    edits: list[tuple[int, int, str]] = []
    declared: list[str] = []
    for n in walk(mod):
        child = flat.get(n.type.valueText) if n.kind == K.HierarchyInstantiation else None
        if child is None or not child.arrays:
            continue
        ports = {a.name: a for a in child.arrays}
        at = where(sm, n.type.location)
        if n.parent is None or n.parent.kind not in _SCOPES:
            raise ArrayPortError(f"{at}: an instance of {n.type.valueText} (unpacked array ports) as the bare body of "
                                 "a generate if/for: put it in begin ... end")
        code = ""
        for inst in nodes(n.instances):
            name = inst.decl.name.valueText if inst.decl is not None else ""
            if inst.decl is None or len(inst.decl.dimensions):
                raise ArrayPortError(f"{at}: instance arrays of {n.type.valueText} (unpacked array ports) are not "
                                     "supported")
            for pos, c in enumerate(nodes(inst.connections)):
                if c.kind == K.WildcardPortConnection:
                    raise ArrayPortError(f"{at}: `.*` on {n.type.valueText} (unpacked array ports): name the "
                                         "connections")
                implicit = c.kind == K.NamedPortConnection and not c.openParen.rawText
                port_name = c.name.valueText if c.kind == K.NamedPortConnection else (
                    child.order[pos] if pos < len(child.order) else "")
                port = ports.get(port_name)
                if port is None or (c.expr is None and not implicit):
                    continue  # not an array port, or left unconnected
                cat = where(sm, c.getFirstToken().location)
                expr = None if implicit else c.expr
                while expr is not None and expr.kind in _WRAPPERS:
                    expr = expr.expr
                if expr is not None and expr.kind != K.IdentifierName:
                    raise ArrayPortError(f"{cat}: `{str(expr).strip()}` is connected to unpacked array port "
                                         f"`{port_name}` of {n.type.valueText}: connect a whole array by name")
                arr_name = port_name if expr is None else expr.identifier.valueText
                arr = locals_.get(arr_name, f"{cat}: `{arr_name}` is not an unpacked array of {module_name(mod)}")
                if isinstance(arr, str):
                    raise ArrayPortError(f"{arr} (connected to unpacked array port `{port_name}` of "
                                         f"{n.type.valueText})")
                if _differ(size(arr.left, arr.right), size(port.left, port.right)) or _differ(arr.width, port.width):
                    raise ArrayPortError(f"{cat}: `{arr_name}` ({arr.width}-bit x {size(arr.left, arr.right)}) does "
                                         f"not match port `{port_name}` of {n.type.valueText} ({port.width}-bit x "
                                         f"{size(port.left, port.right)})")
                wire = f"{CONN}{name}_{port_name}"
                declared += [wire, f"{wire}_i", f"{wire}_g"]
                target = c if expr is None else expr
                new = f".{port_name}({wire})" if expr is None else wire
                edits.append((int(target.sourceRange.start.offset), int(target.sourceRange.end.offset), new))
                code += _code(wire, port, arr)
        start = first_offset(n)  # declared before the instance names them (attributes stay with the instance)
        edits.append((start, start, code.lstrip() + " "))
    return edits, declared
