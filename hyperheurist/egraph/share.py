"""Sharing across a module's assignments: a wire read only by lifted assignments is seen through.

A net or variable that is no port and whose every mention in the module (comments aside) is its
declaration, its own assignment or inside the right-hand side of another lifted assignment holds a
value only those assignments need. Its term is substituted into its readers, so rules match across
assignments (``c ? with_carry : without_carry`` shows the two sums it names) and extraction may share,
change or drop what it computes; it is no root of its own. Its statement is left where it is: once
no rewritten reader reads it, synthesis removes it as dead logic.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .ir import Term, const, evaluate, subterms
from .lift import LiftedModule

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


def internal(text: str, module: LiftedModule) -> set[str]:
    """The continuously assigned targets only the module's lifted assignments read."""
    s, e = module.source
    body = _COMMENT.sub(lambda m: " " * len(m.group()), text[s:e])
    mentions: dict[str, list[int]] = {}
    for m in _NAME.finditer(body):
        mentions.setdefault(m.group(), []).append(s + m.start())
    out = set()
    for a in module.assigns:
        if a.kind == "reg" or a.target in module.ports:
            continue
        own = [(a.start, a.end)] if a.kind != "net" else []
        readers = [(b.start, b.end) for b in module.assigns if b.target != a.target]
        places = own + readers
        if all(p == module.declared.get(a.target) or any(lo <= p < hi for lo, hi in places)
               for p in mentions.get(a.target, [])):
            out.add(a.target)
    return out


def inlined(module: LiftedModule, hidden: set[str]) -> dict[str, Term]:
    """Every lifted assignment but those of ``hidden`` targets (by ``Lifted.key``), with the hidden
    targets' terms substituted for their names (a name defined through itself is left as it is)."""
    defs = {a.target: a.term for a in module.assigns if a.target in hidden}
    done: dict[str, Term] = {}

    def expand(t: Term, busy: frozenset[str]) -> Term:
        new: dict[Term, Term] = {}
        for x in subterms(t):
            if x.op == "var" and x.name in defs and x.name not in busy:
                if x.name not in done:
                    done[x.name] = expand(defs[x.name], busy | {x.name})
                new[x] = done[x.name]
            elif any(new[a] is not a for a in x.args):
                new[x] = Term(x.op, x.width, tuple(new[a] for a in x.args), x.name, x.value)
            else:
                new[x] = x
        return new[t]

    return {a.key: expand(a.term, frozenset()) for a in module.assigns if a.target not in hidden}


def folded(t: Term) -> Term:
    """``t`` with every operator of constant operands folded and every mux of a constant select replaced
    by its arm, so the cost of a written ``(P == 0) ? x : y`` is that of the arm synthesis keeps (the
    dead arm's operators are no gain for a rewrite to claim)."""
    new: dict[Term, Term] = {}
    for x in subterms(t):
        args = tuple(new[a] for a in x.args)
        if x.op == "mux" and args[0].op == "const":
            new[x] = args[1] if args[0].value else args[2]
        elif args and all(a.op == "const" for a in args):
            new[x] = const(evaluate(Term(x.op, x.width, args, x.name, x.value), {}), x.width)
        elif any(n is not a for n, a in zip(args, x.args, strict=True)):
            new[x] = Term(x.op, x.width, args, x.name, x.value)
        else:
            new[x] = x
    return new[t]


def roots(text: str, module: LiftedModule) -> Mapping[str, Term]:
    """The terms to optimise: the module's lifted assignments through its internal wires, constants
    folded, without the registers loaded with a name or a constant (nothing to rewrite there)."""
    out = inlined(module, internal(text, module))
    keep = {a.key for a in module.assigns if a.kind != "reg"}
    return {k: f for k, t in out.items() for f in [folded(t)] if k in keep or f.args}

