"""``initial`` blocks judged as elaborated: which are power-on values, which vanish, which are refused and why.

pyslang's elaborated AST knows each instance's parameter values, so an ``initial if (INIT != "NONE") ...``
whose condition is false at those values holds nothing (it vanishes, as it does for every tool), and a block
inside a generate branch not taken is not there at all. A ``for`` loop with constant bounds (an initial value,
a stop test against a constant or parameter, a step of a constant) is unrolled: when its body assigns only
constants, it is a set of power-on values like a list of assignments (Icarus and Verilator run it, Yosys
unrolls it into init values), so the differential bench and the proof start from the same values.
"""

from __future__ import annotations

from typing import Any

import pyslang
from pyslang import ast

from .parse import where

EK, SK, OP = ast.ExpressionKind, ast.StatementKind, ast.BinaryOperator
MAX_TRIPS = 65536  # iterations of one loop, like elaboration's generate bound
STOP = {OP.LessThan: int.__lt__, OP.LessThanEqual: int.__le__, OP.GreaterThan: int.__gt__,
        OP.GreaterThanEqual: int.__ge__, OP.Inequality: int.__ne__}
STEP = {ast.UnaryOperator.Postincrement: 1, ast.UnaryOperator.Preincrement: 1,
        ast.UnaryOperator.Postdecrement: -1, ast.UnaryOperator.Predecrement: -1}
Node = Any  # pyslang AST statements and expressions (its stubs do not say which attributes each kind has)


class Refused(Exception):
    """Why a block is not a set of power-on values (worded to follow "holds ")."""


def initial_verdicts(comp: ast.Compilation) -> dict[str, str | None]:
    """``file:line: initial block`` of each elaborated ``initial`` block that does something -> None when it
    assigns only constants (power-on values), else why not. Blocks that hold nothing at the parameters are left
    out. A block elaborated in several instances keeps the first refusal. No closure or stored exception holds
    a pyslang object past the call (hdl.parse: lifetimes)."""
    out: dict[str, str | None] = {}
    _visit(comp.getRoot().topInstances, comp.sourceManager, out)
    return out


def _visit(scope: Node, sm: pyslang.SourceManager, out: dict[str, str | None]) -> None:
    for m in scope:
        if isinstance(m, ast.InstanceSymbol):
            _visit(m.body, sm, out)
        elif isinstance(m, ast.InstanceArraySymbol):
            _visit(m.elements, sm, out)
        elif isinstance(m, ast.GenerateBlockSymbol):
            if not m.isUninstantiated:
                _visit(m, sm, out)
        elif isinstance(m, ast.GenerateBlockArraySymbol):
            _visit(m.entries, sm, out)
        elif isinstance(m, ast.ProceduralBlockSymbol) and m.procedureKind == ast.ProceduralBlockKind.Initial:
            key = f"{where(sm, m.syntax.sourceRange.start if m.syntax is not None else m.location)}: initial block"
            why = _verdict(m)
            if why != "" and out.get(key) is None:
                out[key] = why


def _verdict(block: Node) -> str | None:
    """None: power-on values; "": nothing at the parameters; else why the block is not power-on values."""
    try:
        return "" if _statement(block.body, ast.EvalContext(block), frozenset()) == 0 else None
    except Refused as exc:
        return str(exc)


def _statement(st: Node, ctx: ast.EvalContext, loop: frozenset[str]) -> int:
    """The number of assignments ``st`` makes (loops unrolled); Refused when it is not power-on values."""
    k = st.kind
    if k == SK.Empty or k == SK.VariableDeclaration:
        return 0
    if k == SK.List:
        return sum(_statement(s, ctx, loop) for s in st.list)
    if k == SK.Block:
        if st.blockKind != ast.StatementBlockKind.Sequential:
            raise Refused("a fork")
        return _statement(st.body, ctx, loop)
    if k == SK.Conditional:
        cond = st.conditions[0].expr.constant if len(st.conditions) == 1 else None
        if cond is None:
            raise Refused("a condition that is not constant at the parameters")
        taken = st.ifTrue if cond.isTrue() else st.ifFalse
        return 0 if taken is None else _statement(taken, ctx, loop)
    if k == SK.ForLoop:
        var, trips = _trips(st, ctx)
        return trips * _statement(st.body, ctx, loop | {var})
    if k == SK.ExpressionStatement:
        _assignment(st.expr, loop)
        return 1
    if k == SK.Timed:
        raise Refused("a delay or event control")
    if k in (SK.WhileLoop, SK.DoWhileLoop, SK.ForeverLoop, SK.RepeatLoop, SK.ForeachLoop):
        raise Refused("a loop other than a constant-bound for loop")
    raise Refused(f"a statement other than an assignment ({str(k).split('.')[-1]})")


def _refs(e: Node) -> list[Node]:
    """Every expression node of ``e``; Refused on a call (system task or function)."""
    found: list[Node] = []
    e.visit(lambda n: found.append(n) if isinstance(n, ast.Expression) else None)
    if any(n.kind == EK.Call for n in found):
        raise Refused("a system task or function call")
    return found


def _constant(e: Node, loop: frozenset[str]) -> None:
    for n in _refs(e):
        if n.kind == EK.NamedValue and n.symbol.kind != ast.SymbolKind.Parameter and n.symbol.name not in loop:
            raise Refused("a value that is not a constant")


def _assignment(e: Node, loop: frozenset[str]) -> None:
    if e.kind == EK.Call:
        raise Refused("a system task or function call")
    if e.kind != EK.Assignment:
        raise Refused(f"an expression other than an assignment ({str(e.kind).split('.')[-1]})")
    if e.isCompound or e.timingControl is not None:
        raise Refused("a delay, event control or compound assignment")
    target = e.left
    while target.kind in (EK.ElementSelect, EK.RangeSelect):
        _constant(target.selector if target.kind == EK.ElementSelect else target.left, loop)
        if target.kind == EK.RangeSelect:
            _constant(target.right, loop)
        target = target.value
    if target.kind != EK.NamedValue or target.symbol.name in loop:
        raise Refused("an assignment to something other than a register (or one element of it)")
    _constant(e.right, loop)


def _int(e: Node, ctx: ast.EvalContext) -> int:
    _constant(e, frozenset())
    value = e.eval(ctx).value
    if not isinstance(value, pyslang.SVInt) or value.hasUnknown:
        raise Refused("a loop bound that is not a constant integer")
    return int(value)


def _strip(e: Node) -> Node:
    while e.kind == EK.Conversion:
        e = e.operand
    return e


def _trips(st: Node, ctx: ast.EvalContext) -> tuple[str, int]:
    """(loop variable, iterations) of a constant-bound ``for`` loop; Refused for any other loop."""
    if len(st.loopVars) == 1 and not st.initializers and st.loopVars[0].initializer is not None:
        var, start = st.loopVars[0].name, _int(st.loopVars[0].initializer, ctx)
    elif not st.loopVars and len(st.initializers) == 1 and st.initializers[0].kind == EK.Assignment \
            and _strip(st.initializers[0].left).kind == EK.NamedValue:
        var, start = _strip(st.initializers[0].left).symbol.name, _int(st.initializers[0].right, ctx)
    else:
        raise _unbounded()
    stop = st.stopExpr
    if stop is None or stop.kind != EK.BinaryOp or stop.op not in STOP or len(st.steps) != 1 \
            or _strip(stop.left).kind != EK.NamedValue or _strip(stop.left).symbol.name != var:
        raise _unbounded()
    limit, step = _int(stop.right, ctx), _step(st.steps[0], var, ctx)
    if step is None:
        raise _unbounded()
    trips, i = 0, start
    while STOP[stop.op](i, limit):
        trips, i = trips + 1, i + step
        if trips > MAX_TRIPS:
            raise Refused(f"a loop of more than {MAX_TRIPS} iterations (or one that does not end)")
    return var, trips


def _unbounded() -> Refused:
    return Refused("a loop that is not constant-bound (for (i = C; i < C2; i = i + C3) with constants or parameters)")


def _step(e: Node, var: str, ctx: ast.EvalContext) -> int | None:
    if e.kind == EK.UnaryOp and e.op in STEP and _strip(e.operand).kind == EK.NamedValue \
            and _strip(e.operand).symbol.name == var:
        return STEP[e.op]
    if e.kind != EK.Assignment or e.isCompound or _strip(e.left).kind != EK.NamedValue \
            or _strip(e.left).symbol.name != var:
        return None
    r = _strip(e.right)
    if r.kind != EK.BinaryOp or r.op not in (OP.Add, OP.Subtract) or _strip(r.left).kind != EK.NamedValue \
            or _strip(r.left).symbol.name != var:
        return None
    c = _int(r.right, ctx)
    return c if r.op == OP.Add else -c
