"""Unpacked array ports of the top module, made packed vectors in the canonical text.

Yosys 0.23 refuses an unpacked array port in every spelling (``input [7:0] d [0:7]``: "syntax error,
unexpected '['", on the top module and below it). So the canonical text (``hdl.canonical``), which every
tool, bench and cocotb test reads, declares each such port of the top module as one packed vector of the
same name, and rebuilds the array under a private name inside the module::

    input [7:0] d [0:7]     ->  input wire [N*W-1:0] d        (N elements of W bits)
                                wire [7:0] hh_unpacked_d [0:7]; assign hh_unpacked_d[k] = d[i*W +: W] ...

Mapping: the element at position ``i`` counted from the array's declared LEFT bound (``d[0]`` of
``[0:7]``, ``d[7]`` of ``[7:0]``, ``d[0]`` of ``[8]``) is bits ``[(i+1)*W-1 : i*W]`` of the vector. An
output array is copied the other way. Every reference to the port in the module body is renamed to the
private array (pyslang's syntax tree tells references from port-connection and member names), so the
body's meaning is unchanged. Bounds and widths stay expressions of the module's parameters.

Refused with one line naming the place: unpacked array ports of any other module (Yosys cannot take
them), more than one unpacked dimension, element types other than bit vectors and integer types
(structs, typedefs), inout arrays, a default value, non-ANSI port lists, and a port name declared
again inside the module.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from pyslang import SourceManager, ast, parsing, syntax

from .parse import MAX_TEXT, K, Syntax, elaborate, module_name, modules, nodes, parse, syntax_errors, where
from .tokens import utf8

PREFIX = "hh_unpacked_"
_INT_TYPES = {K.ByteType: (8, True), K.ShortIntType: (16, True), K.IntType: (32, True), K.LongIntType: (64, True),
              K.IntegerType: (32, True), K.TimeType: (64, False)}
_VECTOR_TYPES = {K.ImplicitType: "", K.LogicType: "logic", K.RegType: "reg", K.BitType: "bit"}


class ArrayPortError(ValueError):
    """An unpacked array port this rewrite does not support (one line, naming file:line)."""


@dataclass(frozen=True)
class _Array:
    name: str
    dir: str  # input / output
    span: tuple[int, int]  # byte range of the port's declaration in the text
    elem: str  # the private array's element declaration (``wire signed [W-1:0]``)
    width: str  # element width, an expression
    left: str
    right: str
    dim: str  # the unpacked dimension as written (``[0:7]``, ``[8]``)


def _num(expr: str) -> int | None:
    return int(expr) if expr.isdecimal() else None


def _size(left: str, right: str) -> str:
    """The number of elements of ``[left:right]`` (a number when both bounds are plain decimals)."""
    lo, hi = _num(left), _num(right)
    if lo is not None and hi is not None:
        return str(abs(lo - hi) + 1)
    return f"(({left})>=({right})?({left})-({right})+1:({right})-({left})+1)"


def _product(factors: list[str]) -> str:
    """The product of expressions that are each a decimal or parenthesized (so is the result)."""
    if all(f.isdecimal() for f in factors):
        return str(math.prod(int(f) for f in factors))
    return factors[0] if len(factors) == 1 else f"({'*'.join(factors)})"


def _index(left: str, right: str, i: str) -> str:
    """The array index of position ``i`` counted from the left bound."""
    lo, hi = _num(left), _num(right)
    if lo is not None and hi is not None:
        return f"{lo}{'+' if lo <= hi else '-'}{i}" if lo else i
    return f"(({left})<=({right})?({left})+{i}:({left})-{i})"


def _tokens(node: Syntax) -> Iterator[parsing.Token]:
    for child in node:
        if isinstance(child, syntax.SyntaxNode):
            yield from _tokens(child)
        elif isinstance(child, parsing.Token):
            yield child


def _first_offset(node: Syntax) -> int:
    return int(next(_tokens(node)).location.offset)


def _element(header: Syntax, output: bool, at: str, name: str) -> tuple[str, str]:
    """(element declaration for the private array, element width expression) of a port header."""
    dtype = header.dataType
    signing = getattr(dtype, "signing", None)
    signed_kw = signing is not None and signing.kind == parsing.TokenKind.SignedKeyword
    unsigned_kw = signing is not None and signing.kind == parsing.TokenKind.UnsignedKeyword
    net = header.kind == K.NetPortHeader or (dtype.kind == K.ImplicitType and not header.varKeyword.rawText)
    if dtype.kind in _INT_TYPES:
        bits, signed = _INT_TYPES[dtype.kind]
        signed = (signed or signed_kw) and not unsigned_kw
        keyword = "wire" if not output else dtype.keyword.rawText
        packed = f" [{bits - 1}:0]" if keyword == "wire" else ""
        sign = (" signed" if signed else "") if keyword == "wire" else (f" {signing.rawText}" if signing else "")
        return f"{keyword}{sign}{packed}", str(bits)
    if dtype.kind not in _VECTOR_TYPES:
        raise ArrayPortError(f"{at}: port `{name}`: element type `{str(dtype).strip()}` is not supported in an "
                             "unpacked array port (bit vectors only: no structs or typedefs)")
    widths = []
    for dim in dtype.dimensions:
        sel = dim.specifier.selector if dim.specifier is not None else None
        if sel is None or sel.kind != K.SimpleRangeSelect:
            raise ArrayPortError(f"{at}: port `{name}`: packed dimension `{str(dim).strip()}` is not [msb:lsb]")
        widths.append(_size(str(sel.left).strip(), str(sel.right).strip()))
    keyword = "wire" if not output or net else (_VECTOR_TYPES[dtype.kind] or "logic")
    packed = "".join(str(d).strip() for d in dtype.dimensions)
    return f"{keyword}{' signed' if signed_kw else ''}{' ' + packed if packed else ''}", _product(widths or ["1"])


def _bounds(decl: Syntax, at: str) -> tuple[str, str]:
    if len(decl.dimensions) != 1:
        raise ArrayPortError(f"{at}: port `{decl.name.valueText}`: {len(decl.dimensions)} unpacked dimensions; "
                             "only one is supported (pack the others: [N-1:0][W-1:0] name [M])")
    spec = decl.dimensions[0].specifier
    sel = spec.selector if spec is not None and spec.kind == K.RangeDimensionSpecifier else None
    if sel is not None and sel.kind == K.SimpleRangeSelect:
        return str(sel.left).strip(), str(sel.right).strip()
    if sel is not None and sel.kind == K.BitSelect:
        size = str(sel.expr).strip()
        return "0", str(int(size) - 1) if size.isdecimal() else f"({size})-1"
    raise ArrayPortError(f"{at}: port `{decl.name.valueText}`: unpacked dimension "
                         f"`{str(decl.dimensions[0]).strip()}` is not [left:right] or [size]")


def _refuse_below_top(mod: Syntax, sm: SourceManager) -> None:
    ports = mod.header.ports
    decls = []
    if ports is not None and ports.kind == K.AnsiPortList:
        decls = [p.declarator for p in nodes(ports.ports) if p.kind == K.ImplicitAnsiPort]
    decls += [d for m in mod.members if m.kind == K.PortDeclaration for d in nodes(m.declarators)]
    for d in decls:
        if len(d.dimensions):
            raise ArrayPortError(f"{where(sm, d.name.location)}: port `{d.name.valueText}` of module "
                                 f"{module_name(mod)} is an unpacked array: supported on the top module only "
                                 "(Yosys 0.23 refuses them; pack it: [N-1:0][W-1:0])")


@dataclass(frozen=True)
class _Ref:
    """An identifier token copied out of the tree: pyslang binds a node's token attributes as plain references
    (no keep-alive), so a kept token wrapper outlives its tree and nanobind aborts ("inst_new_int(): unexpected
    collision!") when a new object is later allocated at the freed address."""

    start: int  # byte range in the text
    end: int
    name: str
    at: str  # file:line


def _ref(tok: parsing.Token, sm: SourceManager) -> _Ref:
    start = int(tok.location.offset)
    return _Ref(start, start + len(tok.rawText.encode()), tok.valueText, where(sm, tok.location))


def _references(body: list[Syntax], names: set[str], sm: SourceManager) -> tuple[list[_Ref], list[_Ref]]:
    """(references to one of ``names``, other identifier tokens spelling one of them that are neither such a
    reference nor a member/port-connection name). An explicit stack, not a recursive closure: a closure that
    calls itself is a reference cycle, which kept the token wrappers alive after the tree (see _Ref)."""
    refs: list[_Ref] = []
    benign: set[int] = set()
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        if node.kind in (K.IdentifierName, K.IdentifierSelectName):
            if node.identifier.valueText in names:
                refs.append(_ref(node.identifier, sm))
        elif node.kind == K.ScopedName:  # a.b or p::b: only the leftmost part names something of this module
            benign.update(int(t.location.offset) for t in _tokens(node.right))
            stack.append(node.left)
            continue
        elif node.kind in (K.NamedPortConnection, K.NamedParamAssignment, K.MemberAccessExpression):
            benign.add(int(node.name.location.offset))
        stack.extend(reversed([c for c in node if isinstance(c, syntax.SyntaxNode)]))
    seen = {r.start for r in refs} | benign
    others = [_ref(t, sm) for m in body for t in _tokens(m) if t.kind == parsing.TokenKind.Identifier
              and t.valueText in names and int(t.location.offset) not in seen]
    return refs, others


def _code(a: _Array) -> str:
    """The private array and its copy from (input) or to (output) the vector, on one line."""
    arr, i = f"{PREFIX}{a.name}", f"{PREFIX}{a.name}_i"
    idx = _index(a.left, a.right, i)
    bits = f"{a.name}[{i}*{a.width} +: {a.width}]"
    copy = f"assign {arr}[{idx}] = {bits};" if a.dir == "input" else f"assign {bits} = {arr}[{idx}];"
    return (f" {a.elem} {arr} {a.dim}; genvar {i}; generate for ({i} = 0; {i} < {_size(a.left, a.right)}; "
            f"{i} = {i} + 1) begin : {PREFIX}{a.name}_g {copy} end endgenerate")


def _top_arrays(mod: Syntax, sm: SourceManager) -> tuple[list[_Array], list[tuple[int, str]]]:
    """The array ports of the top module, and the explicit headers every inheriting port then needs."""
    ports = mod.header.ports
    if ports is None or ports.kind != K.AnsiPortList:
        for m in mod.members:
            for d in (nodes(m.declarators) if m.kind == K.PortDeclaration else []):
                if len(d.dimensions):
                    raise ArrayPortError(f"{where(sm, d.name.location)}: port `{d.name.valueText}`: an unpacked "
                                         "array port needs an ANSI port list (module top(input [7:0] d [0:3], ...))")
        return [], []
    arrays: list[_Array] = []
    inherit: list[tuple[int, str]] = []
    header: Syntax = None
    for p in nodes(ports.ports):
        if p.kind != K.ImplicitAnsiPort:
            header = None
            continue
        own = str(p.header).strip() != ""
        header = p.header if own else header
        if not own and header is not None:
            inherit.append((_first_offset(p), str(header).strip() + " "))
        decl = p.declarator
        if not len(decl.dimensions):
            continue
        at = where(sm, decl.name.location)
        if decl.initializer is not None:
            raise ArrayPortError(f"{at}: port `{decl.name.valueText}`: an unpacked array port with a default value "
                                 "is not supported")
        direction = header.direction.rawText if header is not None and header.kind != K.InterfacePortHeader else ""
        if direction not in ("input", "output"):
            raise ArrayPortError(f"{at}: port `{decl.name.valueText}`: only input and output unpacked array "
                                 "ports are supported")
        elem, width = _element(header, direction == "output", at, decl.name.valueText)
        left, right = _bounds(decl, at)
        start = _first_offset(p) if own else _first_offset(decl)
        arrays.append(_Array(decl.name.valueText, direction, (start, int(p.sourceRange.end.offset)), elem, width,
                             left, right, str(decl.dimensions[0]).strip()))
    return arrays, inherit


@dataclass(frozen=True)
class _Plan:
    """The rewrite of one tree: byte ranges to replace and their new text."""

    edits: list[tuple[int, int, str]]


def _plan(tree: syntax.SyntaxTree, top: str) -> _Plan | None:
    """The rewrite of ``tree`` (None: ``top`` is not in it or has no unpacked array port); ArrayPortError
    for an unpacked array port it cannot take, in ``top`` or any other module of the tree."""
    sm = tree.sourceManager
    mods = modules(tree)
    for mod in mods:
        if module_name(mod) != top:
            _refuse_below_top(mod, sm)
    tops = [m for m in mods if module_name(m) == top]
    if len(tops) != 1:
        return None
    arrays, inherit = _top_arrays(tops[0], sm)
    if not arrays:
        return None
    names = {a.name for a in arrays}
    taken = {t.valueText for t in _tokens(tree.root) if t.kind == parsing.TokenKind.Identifier}
    clash = sorted(n for a in arrays for n in (f"{PREFIX}{a.name}", f"{PREFIX}{a.name}_i", f"{PREFIX}{a.name}_g")
                   if n in taken)
    if clash:
        raise ArrayPortError(f"{where(sm, tops[0].header.name.location)}: module {top}: the name `{clash[0]}` is "
                             "reserved for an unpacked array port's private copy")
    refs, others = _references(list(tops[0].members), names, sm)
    if others:
        raise ArrayPortError(f"{others[0].at}: `{others[0].name}` is an unpacked array port "
                             f"of {top} and is declared or named again inside it: rename one of them")
    edits = [(a.span[0], a.span[1], f"{a.dir} wire [{_product([_size(a.left, a.right), a.width])}-1:0] {a.name}")
             for a in arrays]
    arrays_at = {a.span[0] for a in arrays}
    edits += [(at, at, hdr) for at, hdr in inherit if at not in arrays_at]
    edits += [(r.start, r.end, f"{PREFIX}{r.name}") for r in refs]
    semi = int(tops[0].header.semi.location.offset) + 1
    edits.append((semi, semi, "".join(_code(a) for a in arrays)))
    return _Plan(edits)


def check_array_ports(trees: Sequence[syntax.SyntaxTree], top: str) -> None:
    """ArrayPortError (file:line) for an unpacked array port the canonical rewrite will refuse."""
    for tree in trees:
        _plan(tree, top)


def flatten_array_ports(text: str, top: str) -> str:
    """``text`` with the unpacked array ports of module ``top`` made packed vectors (see the module doc);
    unchanged when it has none or does not parse (the tools then report why). ArrayPortError, naming the
    original file:line (pyslang follows the text's `` `line`` directives), for what is not supported."""
    if "[" not in text or len(text) > MAX_TEXT:
        return text
    try:
        tree = parse(text, "canonical.v")
    except RuntimeError:
        return text
    if syntax_errors(tree):
        return text
    plan = _plan(tree, top)
    if plan is None:
        return text
    data = utf8(text)
    out, pos = [], 0
    for start, end, new in sorted(plan.edits, key=lambda e: (e[0], e[1])):
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
