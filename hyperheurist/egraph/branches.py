"""A combinational block that writes one variable in branches, lifted to one term (a mux tree).

``always @*`` / ``always_comb`` bodies made only of unnamed ``begin``-``end``, ``if``/``else`` and plain
``case`` (no ``casez``/``casex``/``inside``, no ``unique``/``priority``
or ``parallel_case``/``full_case`` pragma), and blocking ``v = expr;`` assignments to one whole variable
``v``, are a function of the signals they read when every path assigns ``v``: a later assignment
replaces an earlier one (``v = 0; case (s) ... endcase`` is a default then the cases), an ``if``
without ``else`` or a ``case`` without ``default`` keeps the value ``v`` had before it, and a path that
leaves ``v`` unassigned (a latch) or an expression that reads ``v`` leaves the block out. A ``case``
compares its expression with each item (pyslang converts both to their common type), the first
matching item wins: ``mux(s == k0, e0, mux(s == k1, e1, ... default))``. So the e-graph sees the
branches as muxes and its sharing rules (``share-add-left`` ...) apply to an operator per branch,
however the branches are written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from pyslang import ast

from .bind import Bound, Unliftable, truthy
from .ir import Term, node, subterms

S = ast.StatementKind
E = ast.ExpressionKind
MAX_ITEMS = 256  # case items of one block (each adds a mux and a compare)
_PRAGMA = re.compile(r"parallel_case|full_case")


@dataclass(frozen=True)
class Branches:
    """The statement of a combinational block that assigns ``target`` (of ``width`` bits) in branches."""

    stmt: Bound
    target: str
    width: int

    def term(self, bind: Callable[[Bound], Term]) -> Term:
        """The value the block leaves in the target, with ``bind`` stating each expression."""
        out = _value(self.stmt, None, self, bind)
        if out is None:
            raise Unliftable(f"a path through the block leaves {self.target} unassigned")
        if any(x.op == "var" and x.name == self.target for x in subterms(out)):
            raise Unliftable(f"the block reads {self.target}")
        return out


def assigned(stmt: Bound) -> tuple[str, int] | None:
    """The one whole variable every assignment of ``stmt`` writes (and its width) when ``stmt`` holds only
    the forms above and at least one branch (an ``if`` or a ``case``), else None."""
    names: set[tuple[str, int]] = set()
    branches = [0]
    if not _collect(stmt, names, branches) or len(names) != 1 or not branches[0]:
        return None
    return next(iter(names))


def _collect(s: Bound, names: set[tuple[str, int]], branches: list[int]) -> bool:
    k = s.kind
    if k == S.Empty:
        return True
    if k == S.Block:
        return s.blockSymbol is None and _collect(s.body, names, branches)
    if k == S.List:
        return all(_collect(x, names, branches) for x in s.list)
    if k == S.Conditional:
        if len(s.conditions) != 1 or s.conditions[0].pattern is not None or str(s.check).split(".")[-1] != "None_":
            return False
        branches[0] += 1
        return all(x is None or _collect(x, names, branches)
                   for x in (s.ifTrue, s.ifFalse))
    if k == S.Case:
        if str(s.condition).split(".")[-1] != "Normal" or len(s.items) > MAX_ITEMS:
            return False
        if str(s.check).split(".")[-1] != "None_" or _PRAGMA.search(str(s.syntax)):
            return False  # unique/priority or a parallel_case/full_case pragma: synthesis may read it otherwise
        branches[0] += 1
        stmts = [i.stmt for i in s.items] + ([s.defaultCase] if s.defaultCase is not None else [])
        return all(_collect(x, names, branches) for x in stmts)
    if k != S.ExpressionStatement:
        return False
    a = s.expr
    syn = a.syntax
    if a.kind != E.Assignment or a.isNonBlocking or a.timingControl is not None or syn is None \
            or str(syn.kind).split(".")[-1] != "AssignmentExpression":
        return False  # a compound assignment (+=), a delay, a nonblocking one
    left = a.left
    if left.kind != E.NamedValue or not left.type.isIntegral:
        return False
    names.add((str(left.symbol.name), int(left.type.bitWidth)))
    return True


def _value(s: Bound, before: Term | None, b: Branches, bind: Callable[[Bound], Term]) -> Term | None:
    k = s.kind
    if k == S.Empty:
        return before
    if k == S.Block:
        return _value(s.body, before, b, bind)
    if k == S.List:
        for x in s.list:
            before = _value(x, before, b, bind)
        return before
    if k == S.Conditional:
        cond = truthy(bind(s.conditions[0].expr))
        yes = _value(s.ifTrue, before, b, bind)
        no = before if s.ifFalse is None else _value(s.ifFalse, before, b, bind)
        return _mux(cond, yes, no)
    if k == S.Case:
        sel = bind(s.expr)
        out = before if s.defaultCase is None else _value(s.defaultCase, before, b, bind)
        for item in reversed(list(s.items)):
            hits = []
            for e in item.expressions:
                k_ = bind(e)
                if k_.width != sel.width:
                    raise Unliftable("case item of another width than its expression")
                hits.append(node("eq", 1, sel, k_))
            cond = hits[0]
            for h in hits[1:]:
                cond = node("or", 1, cond, h)
            out = _mux(cond, _value(item.stmt, before, b, bind), out)
        return out
    rhs = bind(s.expr.right)
    if rhs.width != b.width:
        raise Unliftable("assignment of another width than its target")
    return rhs


def _mux(cond: Term, yes: Term | None, no: Term | None) -> Term | None:
    if yes is None or no is None:
        return None  # a path that assigns nothing: a latch unless a later statement assigns
    return yes if yes == no else node("mux", yes.width, cond, yes, no)
