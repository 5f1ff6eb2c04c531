"""Terms back to Verilog: one sized wire per distinct operator node, so Verilog's sizing is the term's.

Every operand of an emitted operator is a name, a sized constant, a concatenation or a constant
select of a name (all self-determined) of exactly the width the operator's rule demands (``ir``), and
the wire is as wide as the node: the context width of each expression is then the node's own width
and Verilog computes exactly what the term says (extensions are written as ``{k'h0, x}`` and
``{{k{x[n-1]}}, x}``). An operator whose operand is a sign extension is written on ``$signed``
operands instead, all of them exactly ``w`` bits or sign-extended to it, so synthesis sees a signed
operator of the narrow operands (a 16x16 signed product, not a 32x32 one). Wires are named
``hh_eg<N>``, skipping every identifier the surrounding text already uses; equal subterms share one
wire.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from .ir import BINARY, COMPARES, REDUCES, SHIFTS, UNARY, Term, const, node, subterms
from .lift import Lifted, LiftedModule

SYMBOL = {"add": "+", "sub": "-", "mul": "*", "and": "&", "or": "|", "xor": "^", "shl": "<<", "shr": ">>",
          "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
          "redand": "&", "redor": "|", "redxor": "^", "not": "~", "neg": "-"}
PREFIX = "hh_eg"
# the context-determined operands of each operator (the others are self-determined: a select, an amount)
CONTEXT = {**dict.fromkeys(BINARY, (0, 1)), **dict.fromkeys(UNARY, (0,)), **dict.fromkeys(SHIFTS, (0,)),
           "mux": (1, 2)}


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
        if t.op in ("zext", "sext", "concat", "slice"):
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
        a = self.signed(t) or [self.operand(x) for x in t.args]
        if op in BINARY or op in COMPARES or op in ("shl", "shr"):
            return f"{a[0]} {SYMBOL[op]} {a[1]}"
        if op in REDUCES or op in ("not", "neg"):
            return f"{SYMBOL[op]}{a[0]}"
        if op == "mux":
            return f"{a[0]} ? {a[1]} : {a[2]}"
        if op == "zext":
            return f"{{{t.width - t.args[0].width}'h0, {a[0]}}}" if t.width > t.args[0].width else a[0]
        if op == "sext":
            x = t.args[0]
            if t.width == x.width:
                return a[0]
            top = self.operand(node("slice", 1, x, value=x.width - 1)) if x.width > 1 else a[0]
            return f"{{{{{t.width - x.width}{{{top}}}}}, {a[0]}}}"
        if op == "concat":  # runs of one operand as a replication
            runs: list[list[str]] = []
            for part in a:
                if runs and runs[-1][0] == part:
                    runs[-1].append(part)
                else:
                    runs.append([part])
            return "{" + ", ".join(r[0] if len(r) == 1 else f"{{{len(r)}{{{r[0]}}}}}" for r in runs) + "}"
        raise ValueError(f"no Verilog for operator {op!r}")  # ir.check_node admits no other

    def signed(self, t: Term) -> list[str]:
        """The operands of an operator with a sign-extended context-determined operand as ``$signed(..)``
        (the extension left to Verilog: every context-determined operand is then signed), else []."""
        if t.op not in CONTEXT:
            return []
        ctx = CONTEXT[t.op]
        if not any(t.args[i].op == "sext" for i in ctx):
            return []
        out = []
        for i, x in enumerate(t.args):
            inner = x.args[0] if i in ctx and x.op == "sext" else x
            out.append(f"$signed({self.operand(inner)})" if i in ctx else self.operand(x))
        return out

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


def _lower(roots: Mapping[str, Term], taken: Collection[str], ranges: Mapping[str, tuple[int, int]],
           procedural: Collection[str], inline: Collection[str], indent: str) -> tuple[list[str], dict[str, str]]:
    """The statements computing the roots (wires, then one assignment per root not in ``inline``) and the
    expression of each root in ``inline`` (to write where the root was)."""
    low = _Lowering(taken, ranges)
    inner = {x for t in roots.values() for a in t.args for x in subterms(a)}
    alone = [t for t in roots.values() if t.args and t not in inner and list(roots.values()).count(t) == 1]
    # a root used nowhere else is written into its assignment: the target is exactly as wide as it
    results = {target: low.expression(t) if t in alone else low.operand(t) for target, t in roots.items()}
    out = [indent + line for line in low.lines]
    for target, value in results.items():
        if target not in inline:
            keyword = "always @*" if target in procedural else "assign"
            out.append(f"{indent}{keyword} {target} = {value};")
    return out, {k: v for k, v in results.items() if k in inline}


def lower(roots: Mapping[str, Term], taken: Collection[str], ranges: Mapping[str, tuple[int, int]] | None = None,
          procedural: Collection[str] = (), indent: str = "  ") -> str:
    """Verilog statements computing every root into the target of its name: the wires, then one
    ``assign`` per root (``always @*`` for the targets in ``procedural``, which are variables).
    ``taken``: identifiers already in use; ``ranges``: declared ``[left:right]`` of the vectors."""
    return "\n".join(_lower(roots, taken, ranges or {}, procedural, (), indent)[0])


IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


@dataclass(frozen=True)
class Splice:
    start: int
    end: int
    text: str


def replace_assignments(text: str, module: LiftedModule, terms: Mapping[str, Term]) -> list[Splice]:
    """Splices of ``text`` that replace the statements assigning the roots in ``terms`` (by ``Lifted.key``)
    by lowered ones (a statement's other targets keep their lifted terms). Without registers the lowered
    block goes where the last of those statements stood (every name any of them reads is declared
    before it): in its place, or after it for a ``wire`` declaration, whose initializer is removed (the
    declaration stays where the net's readers expect it). With registers it goes before the first of
    their clocked blocks, where each register's right-hand side is replaced in place, when every name
    the block reads or assigns is declared before it (else nothing is replaced). The other statements
    are removed, as empty splices over them."""
    spans = {(a.start, a.end) for a in module.assigns if a.key in terms}
    if not spans:
        return []
    chosen = [a for a in module.assigns if (a.start, a.end) in spans]
    roots = {a.key: terms.get(a.key, a.term) for a in chosen}
    taken = set(IDENTIFIER.findall(text))
    procedural = {a.key for a in chosen if a.kind == "always"}
    regs = [a for a in chosen if a.kind == "reg"]
    statements = {(a.start, a.end): a for a in chosen if a.kind != "reg"}
    if regs:
        at = min(a.anchor for a in regs)
        line = text.rfind("\n", 0, at) + 1
        names = {x.name for t in roots.values() for x in subterms(t) if x.op == "var"}
        names |= {a.target for a in statements.values()}
        if text[line:at].strip() or any(module.declared.get(n, at) >= at for n in names):
            return []
        lines, values = _lower(roots, taken, module.ranges, procedural, {a.key for a in regs}, text[line:at])
        out = [_removal(text, a) for a in statements.values()]
        return out + [Splice(line, line, "".join(x + "\n" for x in lines))] + \
            [Splice(a.start, a.end, values[a.key]) for a in regs]
    last = max(chosen, key=lambda a: a.anchor)
    at = last.anchor if last.kind == "net" else last.start
    if any(module.declared.get(x.name, at) >= at for t in roots.values() for x in subterms(t) if x.op == "var"):
        return []  # a wire seen through read a name declared later
    line = text.rfind("\n", 0, last.start) + 1
    indent = text[line:len(text[:last.start]) - len(text[line:last.start].lstrip())]
    block = "\n".join(_lower(roots, taken, module.ranges, procedural, (), indent)[0])
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
