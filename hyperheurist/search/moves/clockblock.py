"""Clocked ``always`` blocks executed symbolically (``combblock``'s executor): the next value of each
register the block assigns with ``<=``.

A block clocked by one edge (``always @(posedge clk)``, a synchronous reset is an ``if`` like any other)
often computes a value with blocking temporaries and a loop, then registers only a compare of it:
``cnt = 0; for (...) cnt = cnt + req[i]; multi <= cnt >= 2;``. Run like a combinational block, with
every nonblocking target holding its current value (the register's name) until a ``<=`` writes it, such
a block is one next-state term per register over the inputs and the registers' current values, which
the semantic moves rewrite like any combinational cone, written back as one clocked block per register
(``cones``). The block is left out when a blocking variable is read before it is written (it would be a
register), when one name is written both ways, and when the block has several events (an asynchronous
reset). A block of plain ``<=`` (no loop, no blocking variable) is left to ``egraph.lift``, which states
registers' next values already. Whether a blocking variable is read outside the block is ``cones.needed``'s
check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pyslang import ast

from ...egraph.bind import Bound, Unliftable
from ...egraph.ir import TermError, subterms, var
from ...hdl.parse import Syntax
from . import combblock
from .combblock import Bits, Block, Executor, split, word

S = ast.StatementKind
E = ast.ExpressionKind
_EVENT = re.compile(r"always(?:_ff)?\s*(@\s*\(\s*(?:posedge|negedge)\s+[A-Za-z_][\w$]*\s*\))")
NEXT = "'"  # the executor's key of a register's next value: its name and this (no identifier has it)


@dataclass(frozen=True)
class ClockedBlock(Block):
    """A clocked block: ``outputs`` are the next values of its registers; ``event`` its ``@(...)``;
    ``blocking`` the module-level variables it assigns with ``=`` (temporaries if nothing else reads them)."""

    event: str = ""
    blocking: frozenset[str] = frozenset()


class ClockedExecutor(Executor):
    """``combblock``'s executor with ``<=`` writing a register's next value (kept beside the blocking
    values under ``name + NEXT``; reads of the name still see the register's current value)."""

    def __init__(self, registers: dict[str, int]) -> None:
        super().__init__()
        self.registers: dict[str, int] = dict(registers)
        for n, w in registers.items():
            self.env[n + NEXT] = split(var(n, w))  # held unless written: every branch starts from it

    def expression(self, e: Bound) -> None:
        if e.kind != E.Assignment or not e.isNonBlocking:
            super().expression(e)
            return
        if e.timingControl is not None or e.isCompound:
            raise Unliftable("timed or compound nonblocking assignment")
        value = self.term(e.right)
        base = e.left if e.left.kind == E.NamedValue else getattr(e.left, "value", e.left)
        if base.kind != E.NamedValue or not isinstance(base.symbol, ast.VariableSymbol):
            raise Unliftable("nonblocking assignment to something other than a variable")
        name = str(base.symbol.name)
        self.registers.setdefault(name, int(base.symbol.type.bitWidth))
        key = name + NEXT
        own: Bits | None = self.env.get(name)
        self.env[name] = list(self.env.get(key) or split(var(name, self.registers[name])))
        try:
            self.assign(e.left, value)
            self.env[key] = self.env[name]
        finally:
            if own is None:
                del self.env[name]
            else:
                self.env[name] = own


def _event(sym: ast.ProceduralBlockSymbol, text: str) -> tuple[Bound, str] | None:
    kind = str(sym.procedureKind).split(".")[-1]
    s: Bound = sym.body
    if kind not in ("Always", "AlwaysFF") or s.kind != S.Timed:
        return None
    if s.timing.kind != ast.TimingControlKind.SignalEvent or sym.syntax is None:
        return None
    r = sym.syntax.sourceRange
    m = _EVENT.match(text, int(r.start.offset))
    return (s.stmt, m.group(1)) if m else None


def _run(body: Bound, registers: dict[str, int]) -> ClockedExecutor | None:
    ex = ClockedExecutor(registers)
    combblock._FOLDED.clear()
    try:
        ex.run(body)
    except (Unliftable, TermError, RecursionError):
        return None
    finally:
        combblock._FOLDED.clear()
    return ex


def execute_clocked(sym: ast.ProceduralBlockSymbol, text: str) -> ClockedBlock | None:
    """The block's registers with their next values, or None when the executor cannot state it exactly.
    Run twice: the first run finds the registers, the second starts each from its held value."""
    found = _event(sym, text)
    if found is None:
        return None
    body, event = found
    first = _run(body, {})
    ex = _run(body, first.registers) if first is not None and first.registers else None
    if ex is None or set(ex.registers) != set(first.registers if first else {}):
        return None
    blocking = {n for n in ex.env if not n.endswith(NEXT) and n not in ex.locals}
    if blocking & set(ex.registers) or not (blocking or ex.loops):
        return None  # one name written with both = and <=; or plain <=s, which egraph.lift already states
    outputs = {}
    for name in sorted(ex.registers):
        bits = ex.env[name + NEXT]
        if any(b is None for b in bits):
            return None
        t = word([b for b in bits if b is not None])
        if any(x.op == "var" and x.name in blocking | ex.locals for x in subterms(t)):
            return None  # a blocking variable's value from the last clock: a register, not a temporary
        outputs[name] = t
    r = sym.syntax.sourceRange
    return ClockedBlock(int(r.start.offset), int(r.end.offset), outputs, dict(ex.binder.ranges), ex.loops,
                        event, frozenset(blocking))


def either(sym: ast.ProceduralBlockSymbol, text: str) -> Block | None:
    """A combinational block as ``combblock`` states it, else a clocked one."""
    return combblock.execute(sym, text) or execute_clocked(sym, text)


def blocks(text: str, tree: Syntax | None = None) -> dict[str, list[Block]]:
    """Every combinational or single-edge clocked block of every module the executors state."""
    return combblock.blocks(text, tree, run=either)


__all__ = ["ClockedBlock", "ClockedExecutor", "blocks", "execute_clocked"]
