"""Terms to egglog and back: the e-graph's constructors, each carrying the widths its rules check.

Every constructor's first argument is its result width, except compares and reductions, whose first
argument is their operand width (their result is one bit). Operands whose width the result does not
fix carry it too (a shift amount, a zero-extended or sliced operand, the high part of a concat), so a
rule's width condition reads only constructor arguments. Concat is binary in the e-graph (n-ary
concats nest to the right on the way in and are flattened on the way out). ``Rep`` and ``Dec`` are
helpers that rules expand into concats and never leave the e-graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hyperheurist.egraph.ir import Term, TermError, const, node, var

# argument kinds: "w" a width, "v" an i64 value (a constant, a slice's low bit), "i" a table index, "t" a term
BINARY = {"Add": "add", "Sub": "sub", "Mul": "mul", "And": "and", "Or": "or", "Xor": "xor"}
UNARY = {"Not": "not", "Neg": "neg"}
SHIFTS = {"Shl": "shl", "Shr": "shr"}
COMPARES = {"Eq": "eq", "Ne": "ne", "Lt": "lt", "Le": "le", "Gt": "gt", "Ge": "ge"}
REDUCES = {"RedAnd": "redand", "RedOr": "redor", "RedXor": "redxor"}
SIGNATURES: dict[str, str] = {
    "Var": "wi",
    "Const": "wv",
    "Big": "wi",
    **dict.fromkeys(BINARY, "wtt"),
    **dict.fromkeys(UNARY, "wt"),
    **dict.fromkeys(SHIFTS, "wwtt"),
    "Mux": "wttt",
    **dict.fromkeys(COMPARES, "wtt"),
    **dict.fromkeys(REDUCES, "wt"),
    "Zext": "wwt",
    "Sext": "wwt",
    "Slice": "wvwt",
    "Concat": "wwtt",
    "Rep": "wt",
    "Dec": "wwtv",
}
HELPERS = frozenset({"Rep", "Dec"})
CTOR_OF = {op: name for table in (BINARY, UNARY, SHIFTS, COMPARES, REDUCES) for name, op in table.items()}
CTOR_OF |= {"mux": "Mux", "zext": "Zext", "sext": "Sext", "slice": "Slice", "concat": "Concat"}
I64_CONST_LIMIT = 1 << 62  # larger constants are opaque (Big): i64 arithmetic in the rules must not overflow


def declarations() -> str:
    """The egglog datatype of terms."""
    kinds = {"w": "i64", "v": "i64", "i": "i64", "t": "W"}
    ctors = " ".join(f"({name} {' '.join(kinds[k] for k in sig)})" for name, sig in SIGNATURES.items())
    return f"(datatype W {ctors})\n(function RootOf (i64) W :merge new)\n"


@dataclass(frozen=True)
class Encoded:
    """An egglog program binding every distinct node of the roots, and the tables its indices refer to."""

    program: str
    roots: dict[str, int]  # root name -> its index in RootOf (a class's let name is not kept for every root)
    names: tuple[str, ...]  # Var indices
    bigs: tuple[int, ...]  # Big indices


def encode(roots: dict[str, Term]) -> Encoded:
    """Bind each distinct node once (structurally equal subterms share one binding)."""
    lines: list[str] = []
    names: dict[str, int] = {}
    bigs: dict[int, int] = {}
    seen: dict[tuple[object, ...], str] = {}
    by_id: dict[int, str] = {}

    def bind(expr: str, key: tuple[object, ...]) -> str:
        if key not in seen:
            seen[key] = f"$t{len(seen)}"
            lines.append(f"(let {seen[key]} {expr})")
        return seen[key]

    def enc(t: Term) -> str:
        if id(t) in by_id:
            return by_id[id(t)]
        kids = [enc(x) for x in t.args]
        if t.op == "var":
            expr = f"(Var {t.width} {names.setdefault(t.name, len(names))})"
        elif t.op == "const" and t.value < I64_CONST_LIMIT:
            expr = f"(Const {t.width} {t.value})"
        elif t.op == "const":
            expr = f"(Big {t.width} {bigs.setdefault(t.value, len(bigs))})"
        elif t.op in ("add", "sub", "mul", "and", "or", "xor", "not", "neg", "mux"):
            expr = f"({CTOR_OF[t.op]} {t.width} {' '.join(kids)})"
        elif t.op in ("shl", "shr"):
            expr = f"({CTOR_OF[t.op]} {t.width} {t.args[1].width} {' '.join(kids)})"
        elif t.op in ("zext", "sext", "eq", "ne", "lt", "le", "gt", "ge", "redand", "redor", "redxor"):
            head = f"{t.width} {t.args[0].width}" if t.op in ("zext", "sext") else f"{t.args[0].width}"
            expr = f"({CTOR_OF[t.op]} {head} {' '.join(kids)})"
        elif t.op == "slice":
            expr = f"(Slice {t.width} {t.value} {t.args[0].width} {kids[0]})"
        else:  # concat: nest to the right
            tail, tail_w = kids[-1], t.args[-1].width
            for part, name in zip(reversed(t.args[:-1]), reversed(kids[:-1]), strict=True):
                key = ("Concat", tail_w + part.width, part.width, name, tail)
                tail = bind(f"(Concat {tail_w + part.width} {part.width} {name} {tail})", key)
                tail_w += part.width
            by_id[id(t)] = tail
            return tail
        by_id[id(t)] = bind(expr, (expr,))
        return by_id[id(t)]

    root_names: dict[str, int] = {}
    for i, name in enumerate(sorted(roots)):
        root_names[name] = i
        lines.append(f"(set (RootOf {i}) {enc(roots[name])})")
    by_name = sorted(names, key=names.__getitem__)
    by_big = sorted(bigs, key=bigs.__getitem__)
    return Encoded("\n".join(lines) + "\n", root_names, tuple(by_name), tuple(by_big))


def result_width(ctor: str, ints: Sequence[int]) -> int:
    return 1 if ctor in COMPARES or ctor in REDUCES else ints[0]


def operand_widths(ctor: str, ints: Sequence[int]) -> tuple[int, ...]:
    """The widths of a constructor's term operands, from its integer arguments."""
    w = ints[0]
    if ctor in BINARY or ctor in COMPARES:
        return (w, w)
    if ctor in UNARY or ctor in REDUCES:
        return (w,)
    if ctor in SHIFTS:
        return (w, ints[1])
    if ctor == "Mux":
        return (1, w, w)
    if ctor in ("Zext", "Sext"):
        return (ints[1],)
    if ctor == "Slice":
        return (ints[2],)
    if ctor == "Concat":
        return (ints[1], w - ints[1])
    if ctor == "Rep":
        return (1,)
    if ctor == "Dec":
        return (ints[1],)
    return ()


def decode(ctor: str, ints: Sequence[int], kids: Sequence[Term], names: Sequence[str], bigs: Sequence[int]) -> Term:
    """The Term of one e-node given its operands' Terms; ``TermError`` for a helper or a malformed node."""
    w = ints[0]
    if ctor == "Var":
        return var(names[ints[1]], w)
    if ctor == "Const":  # built directly: const() would wrap a value a wrong rule made too wide
        return Term("const", w, value=ints[1])
    if ctor == "Big":
        return const(bigs[ints[1]], w)
    if ctor in HELPERS or ctor not in SIGNATURES:
        raise TermError(f"{ctor} is not a term")
    if tuple(k.width for k in kids) != operand_widths(ctor, ints):
        raise TermError(f"{ctor}: operand widths disagree with its width arguments")
    if ctor == "Slice":
        return node("slice", w, kids[0], value=ints[1])
    if ctor == "Concat":  # flatten the nesting made on the way in
        parts = [p for k in kids for p in (k.args if k.op == "concat" else (k,))]
        return node("concat", w, *parts)
    table = {**BINARY, **UNARY, **SHIFTS, **COMPARES, **REDUCES, "Mux": "mux", "Zext": "zext", "Sext": "sext"}
    return node(table[ctor], result_width(ctor, ints), *kids)
