"""Register moves for area and power: drop the reset of datapath registers, gate loads with an enable.

Both work on clocked always blocks whose body is ``if (<reset>) <resets> else <loads>`` (or plain
loads) made only of nonblocking assignments, so moving or guarding one register's statements does
not change what the others see. They propose plausible rewrites; the evaluator's differential test
against the parent decides whether the behaviour is kept.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from ...hdl.ports import module_widths
from ..state import MoveContext
from .expr import Syntax
from .rtl import RtlMove, line_span
from .verilog import Edit, K, identifiers, module_name, modules, walk

ALWAYS = {K.AlwaysBlock, K.AlwaysFFBlock}
ENABLE_NAME = re.compile(r"(^|_)(valid|vld|en|enable|ce|load|ld|start|req|stb|strobe|go)(_|$)|valid", re.I)
CONTROL_PARENTS = {K.ConditionalPredicate, K.CaseStatement}


@dataclass(frozen=True)
class Clocked:
    """A clocked always block of nonblocking assignments, split into its reset branch and its loads."""

    block: Syntax  # the always block
    clock_event: str  # e.g. "posedge clk"
    reset_stmt: Syntax | None  # the if-branch taken in reset (None: no reset structure)
    loads: list[Syntax]  # top-level statements that load the registers
    loads_parent: Syntax | None  # the block statement holding ``loads`` (None: a single statement)


def _items(stmt: Syntax) -> list[Syntax]:
    return list(stmt.items) if stmt.kind == K.SequentialBlockStatement else [stmt]


def _only_stmt(stmt: Syntax) -> Syntax:
    """A begin/end holding exactly one statement is that statement."""
    while stmt.kind == K.SequentialBlockStatement and len(stmt.items) == 1 and not stmt.blockName:
        stmt = stmt.items[0]
    return stmt


def _nonblocking_only(node: Syntax) -> bool:
    kinds = {n.kind for n in walk(node)}
    return K.AssignmentExpression not in kinds and K.NonblockingAssignmentExpression in kinds


def targets(node: Syntax) -> set[str]:
    """Registers assigned under ``node`` (the base name of selects)."""
    out: set[str] = set()
    for n in walk(node):
        if n.kind == K.NonblockingAssignmentExpression:
            lhs = n.left
            named = lhs.kind in (K.IdentifierName, K.IdentifierSelectName)
            out.add(lhs.identifier.valueText if named else "")  # "": a concatenation, unknown targets
    return out


def clocked_blocks(mod: Syntax) -> list[Clocked]:
    out = []
    for blk in walk(mod):
        if blk.kind not in ALWAYS or blk.statement.kind != K.TimingControlStatement:
            continue
        tc = blk.statement.timingControl
        if tc.kind != K.EventControlWithExpression or not _nonblocking_only(blk):
            continue
        ev = tc.expr.expr if tc.expr.kind == K.ParenthesizedEventExpression else tc.expr
        events = []
        stack = [ev]
        while stack:
            e = stack.pop()
            if e.kind == K.BinaryEventExpression:
                stack += [e.right, e.left]
            elif e.kind == K.SignalEventExpression and e.edge.valueText in ("posedge", "negedge") \
                    and e.expr.kind == K.IdentifierName:
                events.append((e.edge.valueText, e.expr.identifier.valueText))
            else:
                events = []
                break
        if not events:
            continue
        body = _only_stmt(blk.statement.statement)
        reset_stmt, loads_stmt = None, body
        signals = {name for _, name in events}
        if body.kind == K.ConditionalStatement and body.elseClause is not None:
            cond = set(identifiers(body.predicate))
            if len(cond) == 1 and (len(events) == 1 or cond <= signals):
                reset_stmt, loads_stmt = body.statement, body.elseClause.clause
                signals -= cond
        if len(signals) != 1 or (reset_stmt is None and len(events) != 1):
            continue
        clock = next(f"{edge} {name}" for edge, name in events if name in signals)
        parent = loads_stmt if loads_stmt.kind == K.SequentialBlockStatement else None
        out.append(Clocked(blk, clock, reset_stmt, _items(loads_stmt), parent))
    return out


def _control_names(mod: Syntax) -> set[str]:
    """Signals read in an if/case condition or a ?: select: they steer control."""
    out: set[str] = set()
    for n in walk(mod):
        if n.kind in CONTROL_PARENTS:
            expr = n.expr if n.kind == K.CaseStatement else n
            out.update(identifiers(expr))
        if n.kind == K.ConditionalExpression:
            out.update(identifiers(n.predicate))
    return out


def _ports(mod: Syntax) -> set[str]:
    return {d.name.valueText for d in walk(mod.header) if d.kind == K.Declarator} | {
        d.name.valueText for p in walk(mod) if p.kind == K.PortDeclaration for d in walk(p) if d.kind == K.Declarator}


def _widths(tree: Syntax) -> dict[str, dict[str, int]]:
    """Per module of the file, its signal widths (``hdl.ports.module_widths``: elaborated, each module as a top)."""
    return module_widths([tree], every=True)


def _datapath(mod: Syntax, widths: dict[str, int]) -> set[str]:
    """Multi-bit registers that are not ports and never steer control (``widths``: the module's, ``_widths``)."""
    skip = _ports(mod) | _control_names(mod)
    return {n for n, w in widths.items() if w > 1 and n not in skip}


class DropDatapathReset(RtlMove):
    """Move datapath registers out of a reset block into a plain clocked block (smaller flops)."""

    name = "drop_datapath_reset"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        out = []
        every = _widths(tree)
        for mod in modules(tree):
            data = _datapath(mod, every.get(module_name(mod), {}))
            for cb in clocked_blocks(mod):
                if cb.reset_stmt is None:
                    continue
                resets = [s for s in _items(cb.reset_stmt) if s.kind == K.ExpressionStatement]
                by_reg: dict[str, list[Syntax]] = {}
                for s in resets:
                    t = targets(s)
                    if len(t) == 1 and s.expr.kind == K.NonblockingAssignmentExpression:
                        by_reg.setdefault(next(iter(t)), []).append(s)
                owners = [targets(s) for s in cb.loads]
                movable = []
                for reg in sorted(set(by_reg) & data):
                    mine = [s for s, t in zip(cb.loads, owners, strict=True) if reg in t]
                    if mine and all(targets(s) == {reg} for s in mine):
                        movable.append(reg)
                if not movable:
                    continue
                chosen = movable if len(movable) == 1 or rng.random() < 0.5 else [rng.choice(movable)]
                site = self._site(text, cb, chosen, by_reg, owners)
                if site:
                    out.append(site)
        return out

    @staticmethod
    def _site(text: str, cb: Clocked, regs: list[str], by_reg: dict[str, list[Syntax]],
              owners: list[set[str]]) -> list[Edit]:
        assert cb.reset_stmt is not None  # only blocks with a reset branch are offered
        edits: list[Edit] = []
        moved: list[str] = []
        for reg in regs:
            for s in by_reg[reg]:
                r = s.sourceRange
                edits.append(Edit(*line_span(text, r.start.offset, r.end.offset), ""))
        for s, t in zip(cb.loads, owners, strict=True):
            if t and t <= set(regs):
                r = s.sourceRange
                moved.append(text[r.start.offset:r.end.offset])
                edits.append(Edit(*line_span(text, r.start.offset, r.end.offset), ""))
        if cb.reset_stmt.kind != K.SequentialBlockStatement and len(_items(cb.reset_stmt)) == 1:
            r = cb.reset_stmt.sourceRange  # the whole reset branch goes: leave an empty block
            edits = [e for e in edits if not (r.start.offset <= e.start < r.end.offset)]
            edits.append(Edit(r.start.offset, r.end.offset, "begin end"))
        if cb.loads_parent is None:
            r = cb.loads[0].sourceRange
            edits = [e for e in edits if not (r.start.offset <= e.start < r.end.offset)]
            edits.append(Edit(r.start.offset, r.end.offset, "begin end"))
        br = cb.block.sourceRange
        keyword = cb.block.keyword.valueText
        body = "\n".join(f"    {m}" for m in moved)
        block = f"\n\n  // {', '.join(regs)}: datapath, no reset\n  {keyword} @({cb.clock_event}) begin\n{body}\n  end"
        edits.append(Edit(br.end.offset, br.end.offset, block))
        return edits


def _stage(name: str, loaded: dict[str, set[str]], seen: frozenset[str] = frozenset()) -> int:
    """Pipeline depth of a signal inside one clocked block: 0 when it is not loaded there."""
    if name not in loaded or name in seen:
        return 0
    return 1 + max((_stage(x, loaded, seen | {name}) for x in loaded[name]), default=0)


class EnableGating(RtlMove):
    """Hold a datapath register when its qualifying valid/enable is low: ``if (en) r <= d;``."""

    name = "enable_gating"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        out = []
        every = _widths(tree)
        for mod in modules(tree):
            widths = every.get(module_name(mod), {})
            data = _datapath(mod, widths)
            inputs = {n for n in _ports(mod) if widths.get(n) == 1 and ENABLE_NAME.search(n)}
            for cb in clocked_blocks(mod):
                enables = set(inputs)
                plain: list[tuple[str, Syntax]] = []
                pairs: list[tuple[str, str]] = []
                for s in cb.loads:
                    if s.kind != K.ExpressionStatement or s.expr.kind != K.NonblockingAssignmentExpression:
                        continue
                    lhs, rhs = s.expr.left, s.expr.right
                    if lhs.kind != K.IdentifierName:
                        continue
                    name = lhs.identifier.valueText
                    if widths.get(name) == 1 and rhs.kind == K.IdentifierName:
                        pairs.append((name, rhs.identifier.valueText))
                    elif name in data:
                        plain.append((name, s))
                grew = True
                while grew:  # valid_q <= valid_in: a delayed valid qualifies the next stage
                    grew = False
                    for name, src in pairs:
                        if (src in enables or ENABLE_NAME.search(name)) and not {name, src} <= enables:
                            enables.update({name, src})
                            grew = True
                loaded: dict[str, set[str]] = {}
                for n in cb.loads:
                    t = targets(n)
                    if len(t) == 1 and "" not in t:
                        reg = next(iter(t))
                        loaded.setdefault(reg, set()).update(set(identifiers(n)) - {reg})
                for name, s in plain:
                    reads = set(identifiers(s.expr.right))
                    if not reads:
                        continue
                    # the enable that travels alongside this register's sources: same pipeline stage
                    level = max(_stage(x, loaded) for x in reads)
                    for en in sorted(e for e in enables - reads - {name} if _stage(e, loaded) == level):
                        r = s.sourceRange
                        out.append([Edit(r.start.offset, r.end.offset,
                                         f"if ({en}) {text[r.start.offset:r.end.offset]}")])
        return out
