"""Verilog assignments found in a module and lifted into exact-width terms (``ir.Term``) by ``bind``.

What is lifted: ``assign name = expr;`` (one assignment, no delay or strength; ``{a, b}`` targets
too), ``wire [..] name = expr;`` declarations, ``always @*``/``always_comb`` blocks that are a single
blocking ``name = expr;`` or ``if``/``case`` branches that all write one variable (a mux tree, see
``branches``), and the right-hand side of every nonblocking ``q <= expr;`` in an
edge-triggered block made only of ``if``/``case``/``begin``-``end`` and such assignments (the
expression only: the conditions, enables and resets stay as written). A register's next value is
sampled at the clock edge from values that nonblocking assignments have not yet changed, which is
what a continuous wire computing it holds; a blocking assignment in any clocked block of the module
(its new value would be seen at once in the block, not by a wire) keeps every register's expression
out. Anything ``bind`` cannot state exactly leaves its assignment out (never guessed), and an
overridable parameter the whole module.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from pyslang import ast

from ..hdl.parse import K, Syntax, elaborate, nodes, parse
from .bind import Binder, Bound, Unliftable
from .branches import Branches, assigned
from .ir import Term, TermError, node

E = ast.ExpressionKind
S = ast.StatementKind
# how a target is written: ``assign``, a combinational ``always`` (a variable, re-emitted as
# ``always @*``), a ``wire`` declaration's initializer (a net declaration assignment), or a register's
# nonblocking assignment (``reg``: only its right-hand side is replaced, in place)
Kind = Literal["assign", "always", "net", "reg"]


@dataclass(frozen=True)
class Lifted:
    """One lifted target: its name, its value as a term of its width, and where it is written: the
    span that assigns it (the whole ``assign ...;`` or ``always`` block, the `` = expr`` of a ``wire``
    declaration, or a register's right-hand side) and ``anchor``: the end of that statement (the
    declaration of a ``net``), or for a ``reg`` the start of its clocked block (wires it reads go
    before). The targets of one statement (``assign {cout, sum} = ...``) share its span and slice its
    right-hand side."""

    target: str
    term: Term
    start: int
    end: int
    kind: Kind
    anchor: int

    @property
    def key(self) -> str:
        """A name for this assignment as an e-graph root (a register is assigned at several sites)."""
        return f"{self.target}@{self.start}" if self.kind == "reg" else self.target


@dataclass(frozen=True)
class LiftedModule:
    name: str
    assigns: tuple[Lifted, ...]
    seen: int  # assignments of the forms above, lifted or not
    widths: dict[str, int] = field(default_factory=dict)  # every net and variable, in bits
    ranges: dict[str, tuple[int, int]] = field(default_factory=dict)  # declared [left:right] of vectors
    declared: dict[str, int] = field(default_factory=dict)  # where each net and variable is declared
    ports: frozenset[str] = frozenset()
    source: tuple[int, int] = (0, 0)  # the module's text


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _words(text: str) -> list[str]:
    return _COMMENT.sub(" ", text).split()


def span(stmt: Syntax, text: str) -> tuple[int, int] | None:
    """Offsets of a statement in ``text``, or None when its text is not literally there (a macro
    expansion). As ``search.moves.verilog.span``, which this package cannot import: the moves import it."""
    r = stmt.sourceRange
    s, e = int(r.start.offset), int(r.end.offset)
    if not 0 <= s <= e <= len(text) or _words(text[s:e]) != _words(str(stmt)):
        return None
    return s, e


@dataclass(frozen=True)
class _Found:
    """An assignment as pyslang bound it: the targets (None when not whole vectors), the right-hand
    side, the syntax it is written in and the statement that syntax belongs to (a register's: its
    clocked block)."""

    targets: list[tuple[str, int]] | None
    rhs: Bound
    written: Syntax
    statement: Syntax
    kind: Kind


def _continuous(sym: ast.ContinuousAssignSymbol, widths: dict[str, int]) -> _Found | None:
    """The assignment of an ``assign`` statement holding exactly one, without delay or strength."""
    stmt: Syntax = sym.syntax.parent if sym.syntax is not None else None
    if stmt is None or stmt.kind != K.ContinuousAssign or len(nodes(stmt.assignments)) != 1:
        return None
    if stmt.delay is not None or stmt.strength is not None:
        return None
    a: Bound = sym.assignment
    if a.kind != E.Assignment:
        return None  # an invalid one (pyslang reports it)
    return _Found(_targets(a.left, widths), a.right, stmt, stmt, "assign")


def _timed(sym: ast.ProceduralBlockSymbol) -> tuple[str, Bound]:
    """How an ``always`` block is triggered (``comb``, ``edge``: only posedge/negedge events, else
    ``other``) and its statement below the event control."""
    kind = str(sym.procedureKind).split(".")[-1]
    s: Bound = sym.body
    if kind == "AlwaysComb":
        return "comb", s
    if kind not in ("Always", "AlwaysFF") or s.kind != S.Timed:
        return "other", s
    t = s.timing
    if t.kind == ast.TimingControlKind.ImplicitEvent and kind == "Always":
        return "comb", s.stmt
    events = list(t.events) if t.kind == ast.TimingControlKind.EventList else [t]
    edges = (ast.EdgeKind.PosEdge, ast.EdgeKind.NegEdge)
    if all(e.kind == ast.TimingControlKind.SignalEvent and e.edge in edges and e.iffCondition is None
           for e in events):
        return "edge", s.stmt
    return "other", s.stmt


def _combinational(s: Bound, sym: ast.ProceduralBlockSymbol, widths: dict[str, int]) -> _Found | None:
    """The one blocking assignment of an ``always @*`` or ``always_comb`` block (statement ``s``), else None."""
    if s.kind == S.Block:
        if s.blockSymbol is not None:
            return None  # a named block may declare variables
        s = s.body
    if s.kind != S.ExpressionStatement or s.expr.kind != E.Assignment or s.expr.isNonBlocking:
        one = assigned(s)  # branches (if/case) that all write one variable: a mux tree (egraph.branches)
        if one is None or widths.get(one[0]) != one[1]:
            return None
        return _Found([one], Branches(s, *one), sym.syntax, sym.syntax, "always")
    syn = s.expr.syntax
    if syn is None or syn.kind != K.AssignmentExpression:
        return None  # compound assignments (+=) and the like
    return _Found(_targets(s.expr.left, widths), s.expr.right, sym.syntax, sym.syntax, "always")


def _registers(s: Bound, sym: ast.ProceduralBlockSymbol, widths: dict[str, int], out: list[_Found]) -> bool:
    """Collect the nonblocking assignments of a clocked block's statement ``s`` into ``out``; False when
    the block holds anything else than ``if``, ``case``, unnamed ``begin``-``end`` and them."""
    k = s.kind
    if k == S.Empty:
        return True
    if k == S.Block:
        return s.blockSymbol is None and _registers(s.body, sym, widths, out)
    if k == S.List:
        return all(_registers(x, sym, widths, out) for x in s.list)
    if k == S.Conditional:
        if any(c.pattern is not None for c in s.conditions):
            return False
        return all(x is None or _registers(x, sym, widths, out) for x in (s.ifTrue, s.ifFalse))
    if k == S.Case:
        stmts = [item.stmt for item in s.items] + ([s.defaultCase] if s.defaultCase is not None else [])
        return all(_registers(x, sym, widths, out) for x in stmts)
    if k != S.ExpressionStatement or s.expr.kind != E.Assignment or not s.expr.isNonBlocking:
        return False
    a, syn = s.expr, s.expr.syntax
    if a.timingControl is not None or syn is None or syn.kind != K.NonblockingAssignmentExpression:
        return False
    targets = _targets(a.left, widths)
    out.append(_Found(targets if targets is not None and len(targets) == 1 else None, a.right, syn.right,
                      sym.syntax, "reg"))
    return True


def _net(sym: ast.NetSymbol) -> _Found | None:
    """``wire [..] n = expr;``: a continuous assignment written in the declaration (plain ``wire``, no
    delay or strength); a variable's initializer (``logic v = ...``) is an initial value, never this."""
    init: Bound = sym.initializer
    d: Syntax = sym.syntax
    decl: Syntax = d.parent if d is not None else None
    if init is None or decl is None or decl.kind != K.NetDeclaration or d.initializer is None:
        return None
    if decl.delay is not None or decl.strength is not None or str(sym.netType.netKind).split(".")[-1] != "Wire":
        return None
    t = sym.type
    targets = [(str(sym.name), int(t.bitWidth))] if t.isIntegral else None
    return _Found(targets, init, d.initializer, decl, "net")


def _assignments(body: ast.InstanceBodySymbol, widths: dict[str, int]) -> Iterator[_Found]:
    """Every assignment of the forms lifted; registers' only when every clocked block is read whole."""
    registers: list[_Found] = []
    clean = True
    for m in body:
        found = None
        if isinstance(m, ast.ContinuousAssignSymbol):
            found = _continuous(m, widths)
        elif isinstance(m, ast.ProceduralBlockSymbol):
            how, s = _timed(m)
            if how == "comb":
                found = _combinational(s, m, widths)
            elif how == "edge":
                clean = _registers(s, m, widths, registers) and clean
            elif str(m.procedureKind).split(".")[-1] not in ("Initial", "Final"):
                clean = False  # a block triggered otherwise may write what a register reads
        elif isinstance(m, ast.NetSymbol):
            found = _net(m)
        if found is not None:
            yield found
    if clean:
        yield from registers


def _targets(left: Bound, widths: dict[str, int]) -> list[tuple[str, int]] | None:
    """The whole nets or variables an assignment writes (``y`` or ``{cout, sum}``) and their widths, most
    significant first; None for anything else (a bit or part of a vector). A signed target takes the
    term's bits as they are."""
    parts = list(left.operands) if left.kind == E.Concatenation else [left]
    if any(p.kind != E.NamedValue or not p.type.isIntegral for p in parts):
        return None
    out = [(str(p.symbol.name), int(p.type.bitWidth)) for p in parts]
    return out if all(widths.get(n) == w for n, w in out) else None


def lift_body(body: ast.InstanceBodySymbol, text: str) -> LiftedModule:
    """Every liftable assignment of one elaborated module body (its source is ``text``)."""
    symbols = [m for m in body if isinstance(m, (ast.NetSymbol, ast.VariableSymbol)) and m.type.isIntegral]
    widths = {m.name: int(m.type.bitWidth) for m in symbols}
    declared = {m.name: int(m.location.offset) for m in symbols}
    found = list(_assignments(body, widths))
    if any(isinstance(p, ast.ParameterSymbol) and not p.isLocalParam for p in body.parameters):
        return LiftedModule(body.name, (), len(found), widths)
    binder = Binder()
    out: list[Lifted] = []
    for f in found:
        where, statement = span(f.written, text), span(f.statement, text)
        if where is None or statement is None or f.targets is None:
            continue
        try:
            rhs = f.rhs.term(binder.term) if isinstance(f.rhs, Branches) else binder.term(f.rhs)
        except (Unliftable, TermError):
            continue
        if rhs.width != sum(w for _, w in f.targets):
            continue
        lo = rhs.width
        anchor = statement[0] if f.kind == "reg" else statement[1]
        for name, w in f.targets:  # most significant first, as in the concatenation
            lo -= w
            part = rhs if w == rhs.width else node("slice", w, rhs, value=lo)
            out.append(Lifted(name, part, where[0], where[1], f.kind, anchor))
    # two continuous drivers, or a register also driven continuously: neither is a function
    drivers = [x.target for x in out if x.kind != "reg"] + sorted({x.target for x in out if x.kind == "reg"})
    unique = tuple(x for x in out if drivers.count(x.target) == 1)
    r = body.definition.syntax.sourceRange
    return LiftedModule(body.name, unique, len(found), widths, binder.ranges, declared,
                        frozenset(str(p.name) for p in body.portList), (int(r.start.offset), int(r.end.offset)))


def lift_text(text: str, tree: Syntax | None = None) -> list[LiftedModule]:
    """Every module of ``text`` (its parsed ``tree`` when the caller has it) with its lifted assignments.
    Each module definition is read once, from a top instance or the first instance of it below one."""
    tree = tree if tree is not None else parse(text)
    comp = elaborate([tree])
    out: dict[str, LiftedModule] = {}
    stack = list(comp.getRoot().topInstances)
    while stack:
        inst = stack.pop(0)
        body = inst.body
        if body.name in out:
            continue
        out[body.name] = lift_body(body, text)
        stack += [m for m in body if isinstance(m, ast.InstanceSymbol)]
    return list(out.values())
