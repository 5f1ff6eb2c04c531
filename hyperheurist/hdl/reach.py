"""Elaborate from the top: only the modules the top instantiates, transitively, stay in the canonical text.

Verilator, Edalize and Yosys' ``hierarchy -top`` read a design from its top; a filelist often holds more
(a testbench, another configuration's wrapper, a vendor model). Every gate reads the canonical text, so
a module the top never instantiates is dropped there and nothing downstream sees it (its ``initial``
blocks included). The instance graph comes from pyslang's syntax tree: every instance statement of a
module counts, inside generate branches too, whatever their conditions (a branch dead at the default
parameters may be live under a tunable). A dropped module's text becomes empty lines, so each later
line keeps its canonical line number and its `` `line `` mapping back to the author's file:line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pyslang import syntax

from .parse import MAX_TEXT, K, module_name, parse, walk
from .tokens import utf8

LINE = re.compile(rb'[ \t]*`line[ \t]+\d+[ \t]+"')


@dataclass(frozen=True)
class Reached:
    text: str  # the canonical text without the modules the top does not instantiate
    dropped: tuple[str, ...]  # the dropped modules' names, in text order


def _instantiated(mod: syntax.ModuleDeclarationSyntax) -> set[str]:
    """Names every instance statement inside ``mod`` gives as a type (generate branches included)."""
    return {n.type.valueText for n in walk(mod) if n.kind == K.HierarchyInstantiation}


def reach_from_top(text: str, top: str) -> Reached:
    """``text`` with the module declarations ``top`` does not reach blanked out; unchanged when ``top`` is
    not a module of ``text`` (the structure stage reports that) or the text cannot be parsed here."""
    if len(text) > MAX_TEXT:
        return Reached(text, ())
    try:
        tree = parse(text, "canonical.v")
    except RuntimeError:
        return Reached(text, ())
    decls = [n for n in walk(tree.root) if isinstance(n, syntax.ModuleDeclarationSyntax)
             and n.kind == K.ModuleDeclaration]
    outer = [d for d in decls if not any(o is not d and _inside(d, o) for o in decls)]
    spans: dict[str, list[tuple[int, int]]] = {}
    uses: dict[str, set[str]] = {}
    for d in outer:
        name = module_name(d)
        spans.setdefault(name, []).append((int(d.sourceRange.start.offset), int(d.sourceRange.end.offset)))
        uses.setdefault(name, set()).update(_instantiated(d))
    if top not in spans:
        return Reached(text, ())
    seen, todo = {top}, [top]
    while todo:
        for used in uses.get(todo.pop(), ()):
            if used in spans and used not in seen:
                seen.add(used)
                todo.append(used)
    drop = sorted(((s, e, n) for n, sp in spans.items() if n not in seen for s, e in sp))
    if not drop:
        return Reached(text, ())
    data = utf8(text)
    out, at = [], 0
    for start, end, _ in drop:
        out.append(data[at:start])
        out.append(_blank(data[start:end]))
        at = end
    out.append(data[at:])
    names = tuple(dict.fromkeys(n for _, _, n in drop))
    return Reached(b"".join(out).decode("utf-8", "surrogateescape"), names)


def _blank(region: bytes) -> bytes:
    """``region`` with every line emptied but its `` `line `` directives (an ``include`` inlined in a dropped
    module leaves its file's directives behind: the lines after it must still map to their origin)."""
    return b"\n".join(ln if LINE.match(ln) else b"" for ln in region.split(b"\n"))


def _inside(inner: syntax.SyntaxNode, outer: syntax.SyntaxNode) -> bool:
    a, b = inner.sourceRange, outer.sourceRange
    return bool(b.start.offset <= a.start.offset and a.end.offset <= b.end.offset)
