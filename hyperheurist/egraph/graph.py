"""A saturated e-graph read back from egglog's serialized form, in a deterministic order.

E-classes and e-nodes are renumbered by sorting, so nothing below depends on egglog's internal ids or
on Python's hash seed. Each node is decoded once into a Term whose operands are stand-ins (a class's
constant where it has one, a variable of its width otherwise): that is what a ``NodeCost`` prices.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from hyperheurist.egraph.bits import Bits, of_const, transfer, unknown
from hyperheurist.egraph.encode import (
    BINARY,
    COMPARES,
    HELPERS,
    REDUCES,
    SHIFTS,
    SIGNATURES,
    UNARY,
    decode,
    operand_widths,
    result_width,
)
from hyperheurist.egraph.ir import Term, TermError, const, node, var


@dataclass(frozen=True)
class ENode:
    ctor: str
    ints: tuple[int, ...]
    kids: tuple[int, ...]  # e-class numbers of the term operands
    eclass: int


@dataclass(frozen=True)
class Graph:
    nodes: tuple[ENode, ...]
    classes: tuple[tuple[int, ...], ...]  # node numbers per e-class
    widths: tuple[int, ...]
    roots: dict[int, int]  # RootOf index -> e-class
    names: tuple[str, ...]
    bigs: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.nodes)

    def term(self, n: ENode, kids: Sequence[Term]) -> Term:
        return decode(n.ctor, n.ints, kids, self.names, self.bigs)

    def stand_in(self, eclass: int, bits: tuple[list[int], list[int]]) -> Term:
        """A term of the class's width standing for it when a node is priced: its constant if it holds one,
        else a variable shaped (zero-extended, shifted by a constant) to show the class's known-zero high and
        low bits, so a cost that reads its operands' form (as ``cost.area_cost`` does) sees what any of the
        class's nodes would show."""
        for i in self.classes[eclass]:
            n = self.nodes[i]
            if n.ctor in ("Const", "Big"):
                return self.term(n, ())
        w, (high, low) = self.widths[eclass], (bits[0][eclass], bits[1][eclass])
        if low >= high:
            return const(0, w)
        core = var(f"_{eclass}", high - low)
        if low:
            core = node("shl", high, node("zext", high, core), const(low, low.bit_length()))
        return node("zext", w, core) if high < w else core

    def node_costs(self, cost: Callable[[Term], float]) -> tuple[float, ...]:
        """Each node's own cost; helpers and nodes that do not decode cost infinity (never extracted)."""
        out = []
        bits = known_zeros(self)
        for n in self.nodes:
            try:
                t = self.term(n, [self.stand_in(k, bits) for k in n.kids])
            except TermError:
                out.append(float("inf"))
                continue
            out.append(float(cost(t)))
        return tuple(out)


CONSTS = ("Const", "Big")


def known_zeros(g: Graph) -> tuple[list[int], list[int]]:
    """Per class, the bits below which its value lies (``high``) and its low bits known zero (``low``).

    Every node of a class computes the same value, so the strongest fact any node shows holds for the
    class (``bits.transfer``, the analysis the cost model reads on terms); the facts only tighten, so the
    fixpoint is reached."""
    high, low = list(g.widths), [0] * len(g.classes)
    value = {n.eclass: n.ints[1] if n.ctor == "Const" else g.bigs[n.ints[1]] for n in g.nodes if n.ctor in CONSTS}
    changed = True
    while changed:
        changed = False
        for n in g.nodes:
            c = n.eclass
            got = _node_bits(n, g.widths[c], high, low, value)
            if got.high < high[c] or got.low > low[c]:
                high[c], low[c] = min(high[c], got.high), max(low[c], got.low)
                changed = True
    return high, low


OP_OF = {ctor: op for table in (BINARY, UNARY, SHIFTS, COMPARES, REDUCES) for ctor, op in table.items()}
OP_OF |= {"Mux": "mux", "Zext": "zext", "Sext": "sext", "Slice": "slice", "Concat": "concat"}


def _node_bits(n: ENode, w: int, high: list[int], low: list[int], value: dict[int, int]) -> Bits:
    if n.ctor in CONSTS:
        return of_const(value[n.eclass], w)
    op = OP_OF.get(n.ctor)
    if op is None:  # a variable or a helper
        return unknown(w)
    amount = n.ints[1] if op == "slice" else value.get(n.kids[-1]) if op in ("shl", "shr") else None
    kids = [Bits(high[k], low[k]) for k in n.kids]
    return transfer(op, w, kids, operand_widths(n.ctor, n.ints), amount)


def _number(ident: str) -> tuple[str, int]:
    head, _, tail = ident.rpartition("-")
    return (head, int(tail)) if tail.isdigit() else (ident, -1)


class EgglogNode(TypedDict):
    """One e-node of egglog's JSON serialization (its ``nodes`` object maps node ids to these)."""

    op: str  # the constructor, or a primitive's value (an i64 as text)
    eclass: str  # e.g. "W-12"
    children: list[str]  # node ids
    subsumed: NotRequired[bool]


def load(serialized: str, names: tuple[str, ...], bigs: tuple[int, ...]) -> Graph:
    """Read egglog's JSON serialization (only the term sort W; i64 primitives become integer arguments)."""
    data = json.loads(serialized)
    raw: dict[str, EgglogNode] = data["nodes"]  # egglog's JSON, read as it writes it
    class_ids = sorted({str(n["eclass"]) for n in raw.values() if str(n["eclass"]).startswith("W-")}, key=_number)
    cls = {c: i for i, c in enumerate(class_ids)}
    found: set[ENode] = set()
    roots: dict[int, int] = {}
    for n in raw.values():
        ctor = str(n["op"])
        if ctor == "RootOf":
            roots[int(str(raw[str(n["children"][0])]["op"]))] = cls[str(n["eclass"])]
        if ctor not in SIGNATURES or n.get("subsumed"):
            continue
        children = [raw[str(c)] for c in n["children"]]
        ints, kids = [], []
        for kind, child in zip(SIGNATURES[ctor], children, strict=True):
            if kind == "t":
                kids.append(cls[str(child["eclass"])])
            else:
                ints.append(int(str(child["op"])))
        found.add(ENode(ctor, tuple(ints), tuple(kids), cls[str(n["eclass"])]))
    nodes = tuple(sorted(found, key=lambda e: (e.eclass, e.ctor, e.ints, e.kids)))
    members: list[list[int]] = [[] for _ in class_ids]
    widths = [0] * len(class_ids)
    for i, e in enumerate(nodes):
        members[e.eclass].append(i)
        widths[e.eclass] = result_width(e.ctor, e.ints)
    return Graph(nodes, tuple(tuple(m) for m in members), tuple(widths), roots, names, bigs)


def variants(g: Graph, eclass: int, limit: int) -> list[Term]:
    """Up to ``limit`` distinct helper-free terms the class holds (acyclic; in a deterministic order)."""

    def gen(c: int, path: frozenset[int]) -> Iterator[Term]:
        for i in g.classes[c]:
            n = g.nodes[i]
            if n.ctor in HELPERS or any(k in path for k in n.kids):
                continue
            yield from combine(n, 0, [], path | {c})

    def combine(n: ENode, j: int, done: list[Term], path: frozenset[int]) -> Iterator[Term]:
        if j == len(n.kids):
            try:
                yield g.term(n, done)
            except TermError:
                return
            return
        count = 0
        for t in gen(n.kids[j], path):
            yield from combine(n, j + 1, [*done, t], path)
            count += 1
            if count >= limit:
                return

    out: list[Term] = []
    seen: set[Term] = set()
    for t in gen(eclass, frozenset()):
        if t not in seen:
            seen.add(t)
            out.append(t)
            if len(out) >= limit:
                break
    return out
