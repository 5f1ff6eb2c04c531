"""Unpacked array ports, made packed vectors in the canonical text: on every module of the design.

Yosys 0.23 refuses an unpacked array port in every spelling (``input [7:0] d [0:7]``: "syntax error,
unexpected '['", on the top module and below it). So the canonical text (``hdl.canonical``), which every
tool, bench and cocotb test reads, declares each such port of every module as one packed vector of the
same name, and rebuilds the array under a private name inside the module::

    input [7:0] d [0:7]     ->  input wire [N*W-1:0] d        (N elements of W bits)
                                wire [7:0] hh_unpacked_d [0:7]; assign hh_unpacked_d[k] = d[i*W +: W] ...

Mapping: the element at position ``i`` counted from the array's declared LEFT bound (``d[0]`` of
``[0:7]``, ``d[7]`` of ``[7:0]``, ``d[0]`` of ``[8]``) is bits ``[(i+1)*W-1 : i*W]`` of the vector. An
output array is copied the other way. Every reference to the port in the module body is renamed to the
private array (pyslang's syntax tree tells references from port-connection and member names), so the
body's meaning is unchanged. Bounds and widths stay expressions of the module's parameters. Where a
module instances one with such ports, the array it connects is packed into (or unpacked from) a vector
at the instance (``hdl.array_instances``), with the same mapping.

Refused with one line naming the place: more than one unpacked dimension, element types other than bit
vectors and integer types (structs, typedefs), inout arrays, a default value, non-ANSI port lists, a port
name declared again inside the module, and the connections ``hdl.array_instances`` cannot take.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pyslang import SourceManager, ast, parsing, syntax

from .array_decls import (
    PREFIX,
    ArrayPort,
    ArrayPortError,
    ModuleArrays,
    Ref,
    index,
    leaf_tokens,
    module_arrays,
    product,
    ref,
    size,
)
from .array_instances import connection_edits, local_arrays
from .parse import MAX_TEXT, K, Syntax, elaborate, module_name, modules, parse, syntax_errors, where
from .tokens import utf8

__all__ = ["ArrayPortError", "ArrayShape", "array_shapes", "check_array_ports", "flatten_array_ports"]
Edit = tuple[int, int, str]  # a byte range of the text and its replacement


def _references(body: list[Syntax], names: set[str], sm: SourceManager) -> tuple[list[Ref], list[Ref]]:
    """(references to one of ``names``, other identifier tokens spelling one of them that are neither such a
    reference nor a member/port-connection name). An explicit stack, not a recursive closure: a closure that
    calls itself is a reference cycle, which kept the token wrappers alive after the tree (see Ref)."""
    refs: list[Ref] = []
    benign: set[int] = set()
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        if node.kind in (K.IdentifierName, K.IdentifierSelectName):
            if node.identifier.valueText in names:
                refs.append(ref(node.identifier, sm))
        elif node.kind == K.ScopedName:  # a.b or p::b: only the leftmost part names something of this module
            benign.update(int(t.location.offset) for t in leaf_tokens(node.right))
            stack.append(node.left)
            continue
        elif node.kind in (K.NamedPortConnection, K.NamedParamAssignment, K.MemberAccessExpression):
            benign.add(int(node.name.location.offset))
        stack.extend(reversed([c for c in node if isinstance(c, syntax.SyntaxNode)]))
    seen = {r.start for r in refs} | benign
    others = [ref(t, sm) for m in body for t in leaf_tokens(m) if t.kind == parsing.TokenKind.Identifier
              and t.valueText in names and int(t.location.offset) not in seen]
    return refs, others


def _code(a: ArrayPort) -> str:
    """The private array and its copy from (input) or to (output) the vector, on one line."""
    arr, i = f"{PREFIX}{a.name}", f"{PREFIX}{a.name}_i"
    bits = f"{a.name}[{i}*{a.width} +: {a.width}]"
    copy = f"assign {arr}[{index(a.left, a.right, i)}] = {bits};" if a.dir == "input" else \
        f"assign {bits} = {arr}[{index(a.left, a.right, i)}];"
    return (f" {a.elem} {arr} {a.dim}; genvar {i}; generate for ({i} = 0; {i} < {size(a.left, a.right)}; "
            f"{i} = {i} + 1) begin : {PREFIX}{a.name}_g {copy} end endgenerate")


def _module_edits(mod: Syntax, own: ModuleArrays, flat: Mapping[str, ModuleArrays],
                  sm: SourceManager) -> tuple[list[Edit], list[str]]:
    """The edits of one module (its array ports flattened, its instances' array connections packed) and
    the names they declare."""
    conns, declared = connection_edits(mod, flat, local_arrays(mod, own.arrays, sm), sm)
    arrays = own.arrays
    if not arrays:
        return conns, declared
    refs, others = _references(list(mod.members), {a.name for a in arrays}, sm)
    if others:
        raise ArrayPortError(f"{others[0].at}: `{others[0].name}` is an unpacked array port of "
                             f"{module_name(mod)} and is declared or named again inside it: rename one of them")
    replaced = [(s, e) for s, e, _ in conns if s != e]  # a connected port's own name goes with its connection
    edits = [(a.span[0], a.span[1], f"{a.dir} wire [{product([size(a.left, a.right), a.width])}-1:0] {a.name}")
             for a in arrays]
    arrays_at = {a.span[0] for a in arrays}
    edits += [(at, at, hdr) for at, hdr in own.inherit if at not in arrays_at]
    edits += [(r.start, r.end, f"{PREFIX}{r.name}") for r in refs
              if not any(s <= r.start < e for s, e in replaced)]
    semi = int(mod.header.semi.location.offset) + 1
    edits.append((semi, semi, "".join(_code(a) for a in arrays)))
    declared += [f"{PREFIX}{a.name}{suffix}" for a in arrays for suffix in ("", "_i", "_g")]
    return edits + conns, declared


def _ports(trees: Sequence[syntax.SyntaxTree]) -> dict[str, ModuleArrays]:
    """Every module's array ports, by module name (ArrayPortError for one the rewrite cannot take)."""
    return {module_name(m): module_arrays(m, t.sourceManager) for t in trees for m in modules(t)}


def _plan(tree: syntax.SyntaxTree, flat: Mapping[str, ModuleArrays]) -> list[Edit]:
    """The rewrite of ``tree`` (no edit: no unpacked array port in or below its modules); ArrayPortError
    for an unpacked array port or a connection to one it cannot take."""
    sm = tree.sourceManager
    taken = {t.valueText for t in leaf_tokens(tree.root) if t.kind == parsing.TokenKind.Identifier}
    edits: list[Edit] = []
    for mod in modules(tree):
        mod_edits, declared = _module_edits(mod, flat[module_name(mod)], flat, sm)
        clash = sorted(set(declared) & taken)
        if clash:
            raise ArrayPortError(f"{where(sm, mod.header.name.location)}: module {module_name(mod)}: the name "
                                 f"`{clash[0]}` is reserved for an unpacked array's copy")
        edits += mod_edits
    return edits


def check_array_ports(trees: Sequence[syntax.SyntaxTree]) -> None:
    """ArrayPortError (file:line) for an unpacked array port, or a connection to one, the canonical rewrite
    will refuse (every module of the design is rewritten)."""
    flat = _ports(trees)
    for tree in trees:
        _plan(tree, flat)


def flatten_array_ports(text: str) -> str:
    """``text`` with the unpacked array ports of every module made packed vectors, and the arrays connected
    to them packed at each instance (see the module doc); unchanged when it has none or does not parse (the
    tools then report why). ArrayPortError, naming the original file:line (pyslang follows the text's
    `` `line`` directives), for what is not supported."""
    if "[" not in text or len(text) > MAX_TEXT:
        return text
    try:
        tree = parse(text, "canonical.v")
    except RuntimeError:
        return text
    if syntax_errors(tree):
        return text
    edits = _plan(tree, _ports([tree]))
    if not edits:
        return text
    data = utf8(text)
    out, pos = [], 0
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1])):
        # a replaced declaration keeps its line breaks, so every later line keeps its number
        out += [data[pos:start], new.encode() + b"\n" * data[start:end].count(b"\n")]
        pos = end
    out.append(data[pos:])
    return b"".join(out).decode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class ArrayShape:
    """An unpacked array port as elaborated: ``width``-bit elements, bounds ``[left:right]`` as declared."""

    width: int
    left: int
    right: int
    signed: bool


def array_shapes(trees: Sequence[syntax.SyntaxTree], top: str,
                 params: Mapping[str, str] | None = None) -> dict[str, ArrayShape]:
    """The unpacked array ports of ``top`` (trusted trees, elaborated in process) by name; ArrayPortError
    naming file:line for one the canonical rewrite cannot take."""
    comp = elaborate(trees, top, params)
    sm = trees[0].sourceManager
    out: dict[str, ArrayShape] = {}
    for inst in (i for i in comp.getRoot().topInstances if i.name == top):
        for p in inst.body.portList:
            if not isinstance(p, ast.PortSymbol) or not p.type.isUnpackedArray:
                continue
            at = f"{where(sm, p.location)}: port `{p.name}`"
            arr = p.type.canonicalType
            if not isinstance(arr, ast.FixedSizeUnpackedArrayType):
                raise ArrayPortError(f"{at}: `{p.type}` is not a fixed-size unpacked array")
            elem = arr.elementType
            if elem.isUnpackedArray:
                raise ArrayPortError(f"{at}: several unpacked dimensions (`{p.type}`); only one is supported "
                                     "(pack the others: [N-1:0][W-1:0] name [M])")
            if not elem.isIntegral or elem.isAlias or elem.canonicalType.isStruct or elem.isPackedUnion:
                raise ArrayPortError(f"{at}: element type `{elem}` is not supported in an unpacked array port "
                                     "(bit vectors only: no structs or typedefs)")
            out[p.name] = ArrayShape(int(elem.bitWidth), int(arr.range.left), int(arr.range.right),
                                     bool(elem.isSigned))
    return out
