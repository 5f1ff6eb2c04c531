"""Which rules a result owes to (best effort, for the journal): egglog does not record why nodes are equal.

A rule that matched during saturation is credited when its right side matches a node of the result the
input did not have, or its left side (with its width conditions) a node the input had and the result
lost. Reassociation and operand swaps match almost any node, so they are credited only for new nodes
no other rule explains.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping

from hyperheurist.egraph.encode import CTOR_OF, SIGNATURES
from hyperheurist.egraph.ir import Term, node
from hyperheurist.egraph.rules import Rule

Pattern = str | list["Pattern"]
_ARITH: dict[str, Callable[[int, int], int]] = {
    "+": lambda x, y: x + y,
    "-": lambda x, y: x - y,
    "<<": lambda x, y: x << y if 0 <= y < 4096 else -1,
    ">>": lambda x, y: x >> y if y >= 0 else -1,
    "&": lambda x, y: x & y,
}
_TEST: dict[str, Callable[[int, int], bool]] = {
    "=": lambda x, y: x == y,
    "!=": lambda x, y: x != y,
    "<": lambda x, y: x < y,
    "<=": lambda x, y: x <= y,
    ">": lambda x, y: x > y,
    ">=": lambda x, y: x >= y,
}


def parse(text: str) -> Pattern:
    tokens = re.findall(r"\(|\)|[^\s()]+", text)

    def read(i: int) -> tuple[Pattern, int]:
        if tokens[i] != "(":
            return tokens[i], i + 1
        out: list[Pattern] = []
        i += 1
        while tokens[i] != ")":
            item, i = read(i)
            out.append(item)
        return out, i + 1

    return read(0)[0]


def shape(t: Term) -> tuple[str, list[int], list[Term]] | None:
    """The constructor, integer arguments and operands ``t`` has in the e-graph (concat binary)."""
    a = t.args
    if t.op == "var":
        return None
    if t.op == "const":
        return "Const", [t.width, t.value], []
    ctor = CTOR_OF[t.op]
    if t.op == "concat":
        rest = a[1] if len(a) == 2 else node("concat", t.width - a[0].width, *a[1:])
        return ctor, [t.width, a[0].width], [a[0], rest]
    if t.op in ("shl", "shr"):
        return ctor, [t.width, a[1].width], list(a)
    if t.op in ("zext", "sext"):
        return ctor, [t.width, a[0].width], list(a)
    if t.op == "slice":
        return ctor, [t.width, t.value, a[0].width], list(a)
    if t.op in ("eq", "ne", "lt", "le", "gt", "ge", "redand", "redor", "redxor"):
        return ctor, [a[0].width], list(a)
    return ctor, [t.width], list(a)


def _int(p: Pattern, ints: dict[str, int]) -> int | None:
    if isinstance(p, list):  # arithmetic the matcher does not know leaves the slot free
        if p[0] == "log2" and len(p) == 2:
            x = _int(p[1], ints)
            return None if x is None or x <= 0 else x.bit_length() - 1
        f = _ARITH.get(str(p[0]))
        if f is None or len(p) != 3:
            return None
        x, y = _int(p[1], ints), _int(p[2], ints)
        return None if x is None or y is None else int(f(x, y))
    if p.lstrip("-").isdigit():
        return int(p)
    return ints.get(p)


def matches(p: Pattern, t: Term, ints: dict[str, int], terms: dict[str, object], key: dict[int, int]) -> bool:
    """Whether ``t`` is an instance of ``p`` (bindings extended in place; arithmetic left unbound is free;
    operands compared by their structure's number in ``key``, so a shared DAG is not compared as a tree)."""
    if isinstance(p, str):
        k: object = key.get(id(t), t)
        return terms.setdefault(p, k) == k
    got = shape(t)
    if got is None or got[0] != p[0]:
        return False
    ctor, vals, kids = got
    sig = SIGNATURES[ctor]
    ints_p = [x for k, x in zip(sig, p[1:], strict=True) if k != "t"]
    for q, v in zip(ints_p, vals, strict=True):
        if isinstance(q, str) and not q.lstrip("-").isdigit() and q not in ints:
            ints[q] = v
        elif _int(q, ints) not in (None, v):
            return False
    kids_p = [x for k, x in zip(sig, p[1:], strict=True) if k == "t"]
    return all(matches(q, k, ints, terms, key) for q, k in zip(kids_p, kids, strict=True))


def postorder(root: Term, done: Mapping[int, object]) -> Iterator[Term]:
    """The nodes not in ``done``, operands first, each once (iterative: deep terms do not recurse)."""
    stack: list[tuple[Term, bool]] = [(root, False)]
    queued: set[int] = set()
    while stack:
        t, ready = stack.pop()
        if ready:
            yield t
        elif id(t) not in done and id(t) not in queued:
            queued.add(id(t))
            stack.append((t, True))
            stack.extend((x, False) for x in reversed(t.args))


def holds(r: Rule, ints: dict[str, int]) -> bool:
    """The rule's width conditions under the bindings (one the matcher cannot evaluate counts as true)."""
    for cond in r.when:
        c = parse(cond)
        if isinstance(c, list) and len(c) == 3 and str(c[0]) in _TEST:
            x, y = _int(c[1], ints), _int(c[2], ints)
            if x is not None and y is not None and not _TEST[str(c[0])](x, y):
                return False
    return True


def _number(roots: Iterable[Term], key: dict[int, int], numbers: dict[tuple[object, ...], int]) -> dict[int, Term]:
    """Number every node by its structure (shared numbering across calls); the operators by number."""
    out: dict[int, Term] = {}
    for root in roots:
        for t in postorder(root, key):
            n = numbers.setdefault((t.op, t.width, t.name, t.value, *(key[id(x)] for x in t.args)), len(numbers))
            key[id(t)] = n
            if t.op not in ("var", "const"):
                out.setdefault(n, t)
    return out


def credited(
    rules: Iterable[Rule], matched: set[str], before: dict[str, Term], after: dict[str, Term]
) -> Iterator[str]:
    """The matched rules the result owes to, in rule order."""
    key: dict[int, int] = {}
    numbers: dict[tuple[object, ...], int] = {}
    old = _number((before[n] for n in sorted(before)), key, numbers)
    new = _number((after[n] for n in sorted(after)), key, numbers)
    added, lost = [t for n, t in new.items() if n not in old], [t for n, t in old.items() if n not in new]
    used = [r for r in rules if r.name in matched]

    def rhs_hits(r: Rule) -> list[Term]:
        p = parse(r.rhs)
        return [t for t in added if matches(p, t, {}, {}, key)] if isinstance(p, list) else []

    def lhs_hits(r: Rule) -> list[Term]:
        p, out = parse(r.lhs), []
        for t in lost:
            ints: dict[str, int] = {}
            if matches(p, t, ints, {}, key) and holds(r, ints):
                out.append(t)
        return out

    explained: set[int] = set()
    for r in used:
        if r.family == "reassociate":
            continue
        made = rhs_hits(r)
        explained.update(key[id(t)] for t in made)
        if made or lhs_hits(r):
            yield r.name
    added = [t for t in added if key[id(t)] not in explained]
    for r in used:
        if r.family == "reassociate" and rhs_hits(r):
            yield r.name
