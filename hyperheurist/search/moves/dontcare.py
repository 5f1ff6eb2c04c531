"""unobservable_gating: remove operand isolation whose effect no output can see (an observability don't-care).

A gating site forces a value to zero under a condition: ``c ? x : 0`` (or ``c ? 0 : x``), or
``x & {W{c}}``. Removing it (``x`` alone) is equivalent exactly when, whenever the gate would have
zeroed ``x``, nothing downstream observes the difference: typically the consumer of the result is itself
gated by the same condition (a register loaded only when ``c``, a mux that selects the result only when
``c``). The site is offered when the data flow of the module reaches, from the gated signal, through
assignments and pipeline registers, an assignment guarded by a signal of ``c`` (an enclosing ``if``/``case``, or a
``?:`` select in its right-hand side), where a register that merely copies such a signal counts as that
signal (a delayed valid qualifies the next stage). That is where a designer looks, whatever the text's
form; whether the gating is really unobservable is left to the proof: every child is proven against its
parent from reset (sequentially), so a gating that is observable is refuted there.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field

from ..state import MoveContext
from .expr import Syntax, in_logic, literal, paren, unparen
from .rtl import RtlMove
from .verilog import Edit, K, identifiers, modules, node_text, walk

ASSIGNS = (K.AssignmentExpression, K.NonblockingAssignmentExpression)
MAX_HOPS = 6  # assignments followed from the gated signal


@dataclass
class Assign:
    """One assignment: its targets, what its right-hand side reads, the names that guard it."""

    targets: set[str]
    reads: set[str]
    guards: set[str] = field(default_factory=set)
    registered: bool = False


def _zero(node: Syntax) -> bool:
    node = unparen(node)
    if node.kind == K.UnbasedUnsizedLiteralExpression:
        return str(node.literal.valueText) == "'0"
    lit = literal(node)
    return lit is not None and lit[0] == 0


def _guards(node: Syntax) -> set[str]:
    """Names of the ``if``/``case`` conditions that enclose ``node`` inside its always block."""
    out: set[str] = set()
    p = node.parent
    while p is not None and p.kind not in (K.AlwaysBlock, K.AlwaysFFBlock, K.AlwaysCombBlock, K.ModuleDeclaration):
        if p.kind == K.ConditionalStatement:
            out.update(identifiers(p.predicate))
        elif p.kind == K.CaseStatement:
            out.update(identifiers(p.expr))
        p = p.parent
    return out


def dataflow(mod: Syntax) -> list[Assign]:
    """Every assignment of ``mod`` (continuous, in always blocks, net declaration initialisers)."""
    out = []
    for n in walk(mod):
        if n.kind in ASSIGNS and in_logic(n):
            targets = set(identifiers(n.left))
            guards = _guards(n) | {i for c in walk(n.right) if c.kind == K.ConditionalExpression
                                   for i in identifiers(c.predicate)}
            out.append(Assign(targets, set(identifiers(n.right)), guards, n.kind == K.NonblockingAssignmentExpression))
        elif n.kind == K.Declarator and n.initializer is not None and n.parent is not None \
                and n.parent.kind == K.NetDeclaration:
            rhs = n.initializer.expr
            guards = {i for c in walk(rhs) if c.kind == K.ConditionalExpression for i in identifiers(c.predicate)}
            out.append(Assign({str(n.name.valueText)}, set(identifiers(rhs)), guards))
    return out


def related(flow: list[Assign], names: set[str]) -> set[str]:
    """``names`` and the signals that only copy one of them (or that they copy), to a fixed point."""
    out = set(names)
    copies = [(next(iter(a.targets)), next(iter(a.reads))) for a in flow  # guarded copies too (by a reset)
              if len(a.targets) == 1 and len(a.reads) == 1]
    grew = True
    while grew:
        grew = False
        for t, s in copies:
            if (t in out) != (s in out):
                out |= {t, s}
                grew = True
    return out


def gated_consumer(flow: list[Assign], start: set[str], conds: set[str]) -> bool:
    """Some assignment reached from ``start`` (through assignments and pipeline registers) is guarded by
    ``conds`` or a copy of them."""
    names = related(flow, conds)
    seen = set(start)
    todo = deque((s, 0) for s in start)
    while todo:
        name, hops = todo.popleft()
        for a in flow:
            if name not in a.reads:
                continue
            if a.guards & names:
                return True
            if hops >= MAX_HOPS:
                continue
            for t in a.targets - seen:
                seen.add(t)
                todo.append((t, hops + 1))
    return False


def gating(node: Syntax) -> tuple[Syntax, Syntax] | None:
    """(condition, kept operand) of a gating site, else None."""
    if node.kind == K.ConditionalExpression:
        if _zero(node.right) and not _zero(node.left):
            return node.predicate, node.left
        if _zero(node.left) and not _zero(node.right):
            return node.predicate, node.right
        return None
    if node.kind == K.BinaryAndExpression:
        for rep, kept in ((node.right, node.left), (node.left, node.right)):
            rep = unparen(rep)
            mcat = K.MultipleConcatenationExpression
            if rep.kind == mcat and unparen(kept).kind != mcat:
                return rep.concatenation, kept
    return None


def _logic(node: Syntax) -> bool:
    """In a continuous assign, an always block, or a net declaration's initialiser (``wire w = e;``)."""
    if in_logic(node):
        return True
    p = node.parent
    while p is not None and p.kind not in (K.VariableDimension, K.ParameterDeclaration):
        if p.kind == K.NetDeclaration:
            return True
        p = p.parent
    return False


def _single(stmt: Syntax) -> Syntax | None:
    """The blocking assignment a statement (or a begin/end of one statement) is, else None."""
    while stmt.kind == K.SequentialBlockStatement and len(stmt.items) == 1:
        stmt = stmt.items[0]
    ok = stmt.kind == K.ExpressionStatement and stmt.expr.kind == K.AssignmentExpression
    return stmt.expr if ok else None


def if_gating(node: Syntax, text: str) -> tuple[Syntax, str, set[str]] | None:
    """``if (c) s = x; else s = 0;`` (either way round) in a combinational block: (condition, the statement
    ``s = x;``, {s}), else None."""
    if node.kind != K.ConditionalStatement or node.elseClause is None:
        return None
    p = node.parent
    while p is not None and p.kind not in (K.AlwaysBlock, K.AlwaysCombBlock, K.AlwaysFFBlock):
        p = p.parent
    if p is None or p.kind == K.AlwaysFFBlock or "edge" in str(getattr(p.statement, "timingControl", "")):
        return None
    a, b = _single(node.statement), _single(node.elseClause.clause)
    if a is None or b is None or a.left.kind != K.IdentifierName or node_text(a.left, text) != node_text(b.left, text):
        return None
    kept = a if _zero(b.right) and not _zero(a.right) else b if _zero(a.right) and not _zero(b.right) else None
    stmt = node_text(kept, text) if kept is not None else None
    return (node.predicate, stmt + ";", set(identifiers(a.left))) if stmt is not None else None


def _target(node: Syntax) -> set[str]:
    """The names the statement holding ``node`` assigns."""
    p = node.parent
    while p is not None:
        if p.kind in ASSIGNS:
            return set(identifiers(p.left))
        if p.kind == K.Declarator:
            return {str(p.name.valueText)}
        p = p.parent
    return set()


class UnobservableGating(RtlMove):
    """Drop ``c ? x : 0`` / ``x & {W{c}}`` gating where the consumer is itself gated by ``c``."""

    name = "unobservable_gating"
    requires = "unsigned"  # dropping an unsigned zero operand never changes how the kept one is extended

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        out = []
        for mod in modules(tree):
            flow: list[Assign] | None = None
            for n in walk(mod):
                site = self._site(n, text)
                if site is None:
                    continue
                conds, kept_text, start = site
                flow = flow if flow is not None else dataflow(mod)
                if start and gated_consumer(flow, start, conds):
                    r = n.sourceRange
                    out.append([Edit(r.start.offset, r.end.offset, kept_text)])
        return out

    @staticmethod
    def _site(n: Syntax, text: str) -> tuple[set[str], str, set[str]] | None:
        """(condition names, the ungated text, the names it assigns) of a gating site at ``n``, else None."""
        if n.kind == K.ConditionalStatement:
            g = if_gating(n, text)
            if g is None:
                return None
            cond, kept_text, start = g
            conds = set(identifiers(cond))
            return (conds, kept_text, start) if conds and not conds & start else None
        if n.kind not in (K.ConditionalExpression, K.BinaryAndExpression) or not _logic(n):
            return None
        ge = gating(n)
        if ge is None:
            return None
        kept = node_text(ge[1], text)
        conds = set(identifiers(ge[0]))
        if kept is None or not conds or conds & set(identifiers(ge[1])):
            return None
        return conds, paren(kept), _target(n)
