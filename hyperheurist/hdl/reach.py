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

from .parse import MAX_TEXT, K, Syntax, module_name, parse
from .tokens import utf8

LINE = re.compile(rb'[ \t]*`line[ \t]+\d+[ \t]+"')


NO_INSTANCES = {K.AlwaysBlock, K.AlwaysCombBlock, K.AlwaysFFBlock, K.AlwaysLatchBlock, K.InitialBlock, K.FinalBlock,
                K.ContinuousAssign, K.DataDeclaration, K.NetDeclaration, K.FunctionDeclaration, K.TaskDeclaration,
                K.ModuleHeader, K.PortDeclaration, K.ParameterDeclarationStatement, K.GenvarDeclaration}


@dataclass(frozen=True)
class Reached:
    text: str  # the canonical text without the modules the top does not instantiate
    dropped: tuple[str, ...]  # the dropped modules' names, in text order


def _instantiated(mod: syntax.ModuleDeclarationSyntax) -> set[str]:
    """Names every instance statement inside ``mod`` gives as a type (generate branches included); the
    subtrees that cannot hold one (procedural blocks, declarations, assignments) are not walked."""
    found: set[str] = set()
    stack: list[Syntax] = [mod]
    while stack:
        here = stack.pop()
        if here.kind == K.HierarchyInstantiation:
            found.add(here.type.valueText)
        elif here.kind not in NO_INSTANCES:
            stack.extend(c for c in here if isinstance(c, syntax.SyntaxNode))
    return found


def reach_from_top(text: str, top: str) -> Reached:
    """``text`` with the module declarations ``top`` does not reach blanked out; unchanged when ``top`` is
    not a module of ``text`` (the structure stage reports that) or the text cannot be parsed here."""
    if len(text) > MAX_TEXT:
        return Reached(text, ())
    try:
        tree = parse(text, "canonical.v")
    except RuntimeError:
        return Reached(text, ())
    root = tree.root  # the declaration itself when it is all the text holds
    members = list(root.members) if isinstance(root, syntax.CompilationUnitSyntax) else [root]
    outer = [n for n in members if isinstance(n, syntax.ModuleDeclarationSyntax) and n.kind == K.ModuleDeclaration]
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
