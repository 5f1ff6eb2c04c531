"""Unpacked array declarations read off pyslang's syntax tree, as text: a module's array ports (for the
packed-vector rewrite of ``hdl.arrays``) and a module's own arrays (for ``hdl.array_instances``).

Bounds and widths stay expressions (of the module's parameters) as written; only plain decimals are computed.
Nothing here keeps a pyslang wrapper: what is read is copied into plain strings and numbers while the tree lives.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from pyslang import SourceManager, parsing, syntax

from .parse import K, Syntax, nodes, where

PREFIX = "hh_unpacked_"
_INT_TYPES = {K.ByteType: (8, True), K.ShortIntType: (16, True), K.IntType: (32, True), K.LongIntType: (64, True),
              K.IntegerType: (32, True), K.TimeType: (64, False)}
_VECTOR_TYPES = {K.ImplicitType: "", K.LogicType: "logic", K.RegType: "reg", K.BitType: "bit"}


class ArrayPortError(ValueError):
    """An unpacked array port this rewrite does not support (one line, naming file:line)."""


@dataclass(frozen=True)
class ArrayPort:
    name: str
    dir: str  # input / output
    span: tuple[int, int]  # byte range of the port's declaration in the text
    elem: str  # the private array's element declaration (``wire signed [W-1:0]``)
    width: str  # element width, an expression
    left: str
    right: str
    dim: str  # the unpacked dimension as written (``[0:7]``, ``[8]``)


def num(expr: str) -> int | None:
    return int(expr) if expr.isdecimal() else None


def size(left: str, right: str) -> str:
    """The number of elements of ``[left:right]`` (a number when both bounds are plain decimals)."""
    lo, hi = num(left), num(right)
    if lo is not None and hi is not None:
        return str(abs(lo - hi) + 1)
    return f"(({left})>=({right})?({left})-({right})+1:({right})-({left})+1)"


def product(factors: list[str]) -> str:
    """The product of expressions that are each a decimal or parenthesized (so is the result)."""
    if all(f.isdecimal() for f in factors):
        return str(math.prod(int(f) for f in factors))
    return factors[0] if len(factors) == 1 else f"({'*'.join(factors)})"


def index(left: str, right: str, i: str) -> str:
    """The array index of position ``i`` counted from the left bound."""
    lo, hi = num(left), num(right)
    if lo is not None and hi is not None:
        return f"{lo}{'+' if lo <= hi else '-'}{i}" if lo else i
    return f"(({left})<=({right})?({left})+{i}:({left})-{i})"


def leaf_tokens(node: Syntax) -> Iterator[parsing.Token]:
    for child in node:
        if isinstance(child, syntax.SyntaxNode):
            yield from leaf_tokens(child)
        elif isinstance(child, parsing.Token):
            yield child


def first_offset(node: Syntax) -> int:
    return int(next(leaf_tokens(node)).location.offset)


def vector_width(dtype: Syntax, what: str) -> str:
    """The width expression of a bit-vector or integer type (``what``: ``port `d``` for messages)."""
    if dtype.kind in _INT_TYPES:
        return str(_INT_TYPES[dtype.kind][0])
    if dtype.kind not in _VECTOR_TYPES:
        raise ArrayPortError(f"{what}: element type `{str(dtype).strip()}` is not supported in an unpacked array "
                             "port (bit vectors only: no structs or typedefs)")
    widths = []
    for dim in dtype.dimensions:
        sel = dim.specifier.selector if dim.specifier is not None else None
        if sel is None or sel.kind != K.SimpleRangeSelect:
            raise ArrayPortError(f"{what}: packed dimension `{str(dim).strip()}` is not [msb:lsb]")
        widths.append(size(str(sel.left).strip(), str(sel.right).strip()))
    return product(widths or ["1"])


def element(header: Syntax, output: bool, at: str, name: str) -> tuple[str, str]:
    """(element declaration for the private array, element width expression) of a port header."""
    dtype = header.dataType
    width = vector_width(dtype, f"{at}: port `{name}`")
    signing = getattr(dtype, "signing", None)
    signed_kw = signing is not None and signing.kind == parsing.TokenKind.SignedKeyword
    unsigned_kw = signing is not None and signing.kind == parsing.TokenKind.UnsignedKeyword
    net = header.kind == K.NetPortHeader or (dtype.kind == K.ImplicitType and not header.varKeyword.rawText)
    if dtype.kind in _INT_TYPES:
        signed = (_INT_TYPES[dtype.kind][1] or signed_kw) and not unsigned_kw
        keyword = "wire" if not output else dtype.keyword.rawText
        packed = f" [{width}-1:0]" if keyword == "wire" else ""
        sign = (" signed" if signed else "") if keyword == "wire" else (f" {signing.rawText}" if signing else "")
        return f"{keyword}{sign}{packed}", width
    keyword = "wire" if not output or net else (_VECTOR_TYPES[dtype.kind] or "logic")
    packed = "".join(str(d).strip() for d in dtype.dimensions)
    return f"{keyword}{' signed' if signed_kw else ''}{' ' + packed if packed else ''}", width


def bounds(decl: Syntax, at: str, what: str = "port") -> tuple[str, str]:
    """The declared ``[left:right]`` of a one-dimensional unpacked declarator (``[N]`` is ``[0:N-1]``)."""
    if len(decl.dimensions) != 1:
        raise ArrayPortError(f"{at}: {what} `{decl.name.valueText}`: {len(decl.dimensions)} unpacked dimensions; "
                             "only one is supported (pack the others: [N-1:0][W-1:0] name [M])")
    spec = decl.dimensions[0].specifier
    sel = spec.selector if spec is not None and spec.kind == K.RangeDimensionSpecifier else None
    if sel is not None and sel.kind == K.SimpleRangeSelect:
        return str(sel.left).strip(), str(sel.right).strip()
    if sel is not None and sel.kind == K.BitSelect:
        count = str(sel.expr).strip()
        return "0", str(int(count) - 1) if count.isdecimal() else f"({count})-1"
    raise ArrayPortError(f"{at}: {what} `{decl.name.valueText}`: unpacked dimension "
                         f"`{str(decl.dimensions[0]).strip()}` is not [left:right] or [size]")


@dataclass(frozen=True)
class Ref:
    """An identifier token copied out of the tree: pyslang binds a node's token attributes as plain references
    (no keep-alive), so a kept token wrapper outlives its tree and nanobind aborts ("inst_new_int(): unexpected
    collision!") when a new object is later allocated at the freed address."""

    start: int  # byte range in the text
    end: int
    name: str
    at: str  # file:line


def ref(tok: parsing.Token, sm: SourceManager) -> Ref:
    start = int(tok.location.offset)
    return Ref(start, start + len(tok.rawText.encode()), tok.valueText, where(sm, tok.location))


@dataclass(frozen=True)
class ModuleArrays:
    """A module's unpacked array ports, the explicit headers every port inheriting a header then needs (the
    rewrite gives the array its own), and the ANSI port names in order (for ordered connections)."""

    arrays: list[ArrayPort]
    inherit: list[tuple[int, str]]
    order: list[str]


def module_arrays(mod: Syntax, sm: SourceManager) -> ModuleArrays:
    """ArrayPortError (file:line) for an unpacked array port the rewrite cannot take."""
    ports = mod.header.ports
    if ports is None or ports.kind != K.AnsiPortList:
        for m in mod.members:
            for d in (nodes(m.declarators) if m.kind == K.PortDeclaration else []):
                if len(d.dimensions):
                    raise ArrayPortError(f"{where(sm, d.name.location)}: port `{d.name.valueText}`: an unpacked "
                                         "array port needs an ANSI port list (module top(input [7:0] d [0:3], ...))")
        return ModuleArrays([], [], [])
    arrays: list[ArrayPort] = []
    inherit: list[tuple[int, str]] = []
    order: list[str] = []
    header: Syntax = None
    for p in nodes(ports.ports):
        order.append(p.declarator.name.valueText if p.kind == K.ImplicitAnsiPort else "")
        if p.kind != K.ImplicitAnsiPort:
            header = None
            continue
        own = str(p.header).strip() != ""
        header = p.header if own else header
        if not own and header is not None:
            inherit.append((first_offset(p), str(header).strip() + " "))
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
        elem, width = element(header, direction == "output", at, decl.name.valueText)
        left, right = bounds(decl, at)
        start = first_offset(p) if own else first_offset(decl)
        arrays.append(ArrayPort(decl.name.valueText, direction, (start, int(p.sourceRange.end.offset)), elem, width,
                                left, right, str(decl.dimensions[0]).strip()))
    return ModuleArrays(arrays, inherit, order)
