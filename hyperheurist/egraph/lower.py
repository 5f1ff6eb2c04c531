"""Terms back to Verilog: one sized wire per distinct operator node, so Verilog's sizing is the term's.

Every operand of an emitted operator is a name, a sized constant, a concatenation or a constant
select of a name (all self-determined) of exactly the width the operator's rule demands (``ir``), and
the wire is as wide as the node: the context width of each expression is then the node's own width
and Verilog computes exactly what the term says (extensions are written as ``{k'h0, x}``). Wires are
named ``hh_eg<N>``, skipping every identifier the surrounding text already uses; equal subterms
share one wire.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from .ir import BINARY, COMPARES, REDUCES, Term, const, subterms
from .lift import Lifted, LiftedModule

SYMBOL = {"add": "+", "sub": "-", "mul": "*", "and": "&", "or": "|", "xor": "^", "shl": "<<", "shr": ">>",
          "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
          "redand": "&", "redor": "|", "redxor": "^", "not": "~", "neg": "-"}
PREFIX = "hh_eg"


def literal(t: Term) -> str:
    return f"{t.width}'h{t.value:x}"


def decl(width: int) -> str:
    return "wire" if width == 1 else f"wire [{width - 1}:0]"


@dataclass
class _Lowering:
    taken: Collection[str]
    ranges: Mapping[str, tuple[int, int]]
    lines: list[str] = field(default_factory=list)
    names: dict[Term, str] = field(default_factory=dict)
    counter: int = 0

    def fresh(self) -> str:
        while f"{PREFIX}{self.counter}" in self.taken:
            self.counter += 1
        self.counter += 1
        return f"{PREFIX}{self.counter - 1}"

    def wire(self, t: Term, expr: str) -> str:
        name = self.fresh()
        self.lines.append(f"{decl(t.width)} {name} = {expr};")
        self.names[t] = name
        return name

    def operand(self, t: Term) -> str:
        """A name, constant, concatenation or constant select of a name holding ``t`` (each
        self-determined, so exactly ``t.width`` bits), emitting the wires it needs."""
        if t.op == "var":
            return t.name
        if t.op == "const":
            return literal(t)
        if t.op == "slice" and t.args[0].op == "const":
            return literal(const(t.args[0].value >> t.value, t.width))
        if t in self.names:
            return self.names[t]
        if t.op in ("zext", "concat", "slice"):
            return self.expression(t)  # wiring only: no operator of its own
        return self.wire(t, self.expression(t))

    def named(self, t: Term) -> str:
        """A name holding ``t`` (a wire unless ``t`` is a variable or already has one)."""
        if t.op == "var" or t in self.names:
            return self.operand(t)
        return self.wire(t, self.expression(t))

    def expression(self, t: Term) -> str:
        op = t.op
        if op == "slice":
            return self.sliced(t)
        a = [self.operand(x) for x in t.args]
        if op in BINARY or op in COMPARES or op in ("shl", "shr"):
            return f"{a[0]} {SYMBOL[op]} {a[1]}"
        if op in REDUCES or op in ("not", "neg"):
            return f"{SYMBOL[op]}{a[0]}"
        if op == "mux":
            return f"{a[0]} ? {a[1]} : {a[2]}"
        if op == "zext":
            return f"{{{t.width - t.args[0].width}'h0, {a[0]}}}" if t.width > t.args[0].width else a[0]
        if op == "concat":
            return "{" + ", ".join(a) + "}"
        raise ValueError(f"no Verilog for operator {op!r}")  # ir.check_node admits no other

    def sliced(self, t: Term) -> str:
        """``x[hi:lo]`` of a wire, or of a variable by its declared range; a variable declared any other
        way (or not at all) is copied to a ``[w-1:0]`` wire first."""
        x, lo = t.args[0], t.value
        hi = lo + t.width - 1
        if t.width == x.width:
            return self.operand(x)
        if x.op == "var" and x.name in self.ranges:
            left, right = self.ranges[x.name]
            if left >= right:
                return f"{x.name}[{hi + right}:{lo + right}]"
            return f"{x.name}[{right - hi}:{right - lo}]"
        name = self.named(x) if x.op != "var" or x in self.names else self.wire(x, x.name)
        return f"{name}[{hi}:{lo}]"


def lower(roots: Mapping[str, Term], taken: Collection[str], ranges: Mapping[str, tuple[int, int]] | None = None,
          procedural: Collection[str] = (), indent: str = "  ") -> str:
    """Verilog statements computing every root into the target of its name: the wires, then one
    ``assign`` per root (``always @*`` for the targets in ``procedural``, which are variables).
    ``taken``: identifiers already in use; ``ranges``: declared ``[left:right]`` of the vectors."""
    low = _Lowering(taken, ranges or {})
    inner = {x for t in roots.values() for a in t.args for x in subterms(a)}
    alone = [t for t in roots.values() if t.args and t not in inner and list(roots.values()).count(t) == 1]
    # a root used nowhere else is written into its assignment: the target is exactly as wide as it
    results = {target: low.expression(t) if t in alone else low.operand(t) for target, t in roots.items()}
    out = [indent + line for line in low.lines]
    for target, value in results.items():
        keyword = "always @*" if target in procedural else "assign"
        out.append(f"{indent}{keyword} {target} = {value};")
    return "\n".join(out)


IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


@dataclass(frozen=True)
class Splice:
    start: int
    end: int
    text: str


def replace_assignments(text: str, module: LiftedModule, terms: Mapping[str, Term]) -> list[Splice]:
    """Splices of ``text`` that replace the statements assigning the targets in ``terms`` by lowered
    ones (a statement's other targets keep their lifted terms). The lowered block goes where the last
    of those statements stood (every name any of them reads is declared before it): in its place, or
    after it for a ``wire`` declaration, whose initializer is removed (the declaration stays where
    the net's readers expect it). The other statements are removed, as empty splices over them."""
    spans = {(a.start, a.end) for a in module.assigns if a.target in terms}
    if not spans:
        return []
    chosen = [a for a in module.assigns if (a.start, a.end) in spans]
    last = max(chosen, key=lambda a: a.anchor)
    line = text.rfind("\n", 0, last.start) + 1
    indent = text[line:len(text[:last.start]) - len(text[line:last.start].lstrip())]
    block = lower({a.target: terms.get(a.target, a.term) for a in chosen}, set(IDENTIFIER.findall(text)),
                  module.ranges, {a.target for a in chosen if a.kind == "always"}, indent)
    statements = {(a.start, a.end): a for a in chosen}
    out = [_removal(text, a) for span, a in statements.items() if span != (last.start, last.end)]
    if last.kind == "net":
        return out + [_removal(text, last), Splice(last.anchor, last.anchor, "\n" + block)]
    return out + [Splice(last.start, last.end, block[len(indent):])]


def _removal(text: str, a: Lifted) -> Splice:
    """An empty splice over a statement (a declaration's initializer with the blanks before it)."""
    start = a.start
    while a.kind == "net" and start > 0 and text[start - 1] in " \t":
        start -= 1
    return Splice(start, a.end, "")
