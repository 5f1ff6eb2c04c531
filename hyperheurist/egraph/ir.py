"""Exact-width word-level terms: the language the rewrite engine reasons in.

Verilog sizes an expression by its context, so ``a + b`` means different things in different
assignments. A ``Term`` carries its own result width and every operator's operands have the widths
its rule below demands, so a term means one thing wherever it appears and rewrites can be checked by
evaluation alone. The Verilog bridge makes every extension and truncation explicit (``zext``,
``slice``) on the way in, and emits one sized wire per node on the way out.

Operators (``w`` is the term's width; all arithmetic is modulo 2**w, all values unsigned: Verilog's signed
arithmetic is the same bits except for extension, which ``sext`` states, and compares and ``>>>``, which
the lifting writes with these operators):
- ``var`` (``name``), ``const`` (``value`` < 2**w);
- ``add sub mul and or xor``: two operands of width w; ``not neg``: one operand of width w;
- ``shl shr``: operand 0 of width w, operand 1 the shift amount of any width (logical shifts);
- ``mux``: a 1-bit select, then the value when it is 1, then the value when it is 0, both width w;
- ``eq ne lt le gt ge``: two operands of one width, w = 1;
- ``redand redor redxor``: one operand of any width, w = 1;
- ``zext`` ``sext``: one operand no wider than w (``sext`` repeats its top bit);
- ``slice``: w bits of operand 0 from bit ``value`` up;
- ``concat``: two or more operands, most significant first, w = the sum of their widths.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

BINARY = frozenset({"add", "sub", "mul", "and", "or", "xor"})
UNARY = frozenset({"not", "neg"})
SHIFTS = frozenset({"shl", "shr"})
COMPARES = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})
REDUCES = frozenset({"redand", "redor", "redxor"})
OPS = BINARY | UNARY | SHIFTS | COMPARES | REDUCES | {"var", "const", "mux", "zext", "sext", "slice", "concat"}
REPR_NODES = 60
MAX_WIDTH = 4096  # wider words are not datapath expressions worth rewriting


class TermError(ValueError):
    """A term that breaks its operator's width rule."""


@dataclass(frozen=True, eq=False, repr=False)
class Term:
    op: str
    width: int
    args: tuple[Term, ...] = ()
    name: str = ""  # var only
    value: int = 0  # const: the value; slice: the lowest bit taken
    # computed once: the generated __hash__ recurses through operands every time, exponential on a
    # shared DAG (a 22-stage counter chain took 12 s to hash)
    _hash: int = field(init=False, repr=False, compare=False, default=0)

    def __post_init__(self) -> None:
        check_node(self)
        object.__setattr__(self, "_hash", hash((self.op, self.width, self.args, self.name, self.value)))

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        """``add/8(var a/8, const 3/8)``, at most ``REPR_NODES`` nodes (a shared DAG unfolds to a tree
        exponentially larger: an assertion message printing it must not hang)."""
        budget = [REPR_NODES]

        def show(t: Term) -> str:
            budget[0] -= 1
            if budget[0] < 0:
                return "..."
            head = f"{t.op} {t.name}/{t.width}" if t.op == "var" else f"{t.op} {t.value}/{t.width}" \
                if t.op in ("const", "slice") else f"{t.op}/{t.width}"
            return f"{head}({', '.join(show(a) for a in t.args)})" if t.args else head

        return show(self)

    def __eq__(self, other: object) -> bool:
        """Structural equality, each pair of shared nodes compared once (linear in the DAGs' sizes)."""
        if not isinstance(other, Term):
            return NotImplemented
        seen: set[tuple[int, int]] = set()
        todo = [(self, other)]
        while todo:
            p, q = todo.pop()
            if p is q or (id(p), id(q)) in seen:
                continue
            if (p._hash, p.op, p.width, p.name, p.value, len(p.args)) != \
                    (q._hash, q.op, q.width, q.name, q.value, len(q.args)):
                return False
            seen.add((id(p), id(q)))
            todo.extend(zip(p.args, q.args, strict=True))
        return True


def var(name: str, width: int) -> Term:
    return Term("var", width, name=name)


def const(value: int, width: int) -> Term:
    return Term("const", width, value=value % (1 << width))


def node(op: str, width: int, *args: Term, value: int = 0) -> Term:
    return Term(op, width, tuple(args), value=value)


def check_node(t: Term) -> None:
    """Raise ``TermError`` unless ``t``'s own operator rule holds (its operands were checked when built)."""
    w, a, op = t.width, t.args, t.op
    if op not in OPS:
        raise TermError(f"unknown operator {op!r}")
    if not 1 <= w <= MAX_WIDTH:
        raise TermError(f"{op}: width {w} outside 1..{MAX_WIDTH}")
    arity = {"var": 0, "const": 0, "mux": 3, "zext": 1, "sext": 1, "slice": 1}
    if op in BINARY or op in COMPARES or op in SHIFTS:
        arity[op] = 2
    if op in UNARY or op in REDUCES:
        arity[op] = 1
    if op == "concat":
        if len(a) < 2 or sum(x.width for x in a) != w:
            raise TermError("concat: two or more operands whose widths add up to the result's")
        return
    if len(a) != arity[op]:
        raise TermError(f"{op}: {len(a)} operands, expected {arity[op]}")
    if op == "var" and not t.name:
        raise TermError("var: no name")
    if op == "const" and not 0 <= t.value < (1 << w):
        raise TermError(f"const: {t.value} does not fit {w} bits")
    if (op in BINARY or op in UNARY) and any(x.width != w for x in a):
        raise TermError(f"{op}: operands must be {w} bits")
    if op in SHIFTS and a[0].width != w:
        raise TermError(f"{op}: shifted operand must be {w} bits")
    if op in COMPARES and (w != 1 or a[0].width != a[1].width):
        raise TermError(f"{op}: operands of one width, result 1 bit")
    if op in REDUCES and w != 1:
        raise TermError(f"{op}: result 1 bit")
    if op == "mux" and (a[0].width != 1 or a[1].width != w or a[2].width != w):
        raise TermError("mux: 1-bit select, both values of the result's width")
    if op in ("zext", "sext") and a[0].width > w:
        raise TermError(f"{op}: operand wider than the result")
    if op == "slice" and (t.value < 0 or t.value + w > a[0].width):
        raise TermError("slice: bits outside the operand")


def evaluate(t: Term, env: Mapping[str, int]) -> int:
    """The term's value for the variables' values in ``env`` (each taken modulo 2**its width)."""
    return evaluator(t)(env)


def evaluator(t: Term) -> Callable[[Mapping[str, int]], int]:
    """``evaluate`` of one term for many environments: its node order is worked out once (a rule check or a
    lifted loop evaluates a term at hundreds of points; walking it each time was half their time)."""
    order = list(subterms(t))  # operands first, each shared node once
    index = {x: i for i, x in enumerate(order)}
    plan = [(x, [index[a] for a in x.args]) for x in order]

    def run(env: Mapping[str, int]) -> int:
        values: list[int] = []
        for x, args in plan:
            values.append(_value(x, [values[i] for i in args], env))
        return values[-1]

    return run


def _value(t: Term, v: list[int], env: Mapping[str, int]) -> int:
    mask = (1 << t.width) - 1
    op = t.op
    if op == "var":
        return env[t.name] & mask
    if op == "const":
        return t.value
    if op == "concat":
        out = 0
        for part, val in zip(t.args, v, strict=True):
            out = (out << part.width) | val
        return out
    if op == "slice":
        return (v[0] >> t.value) & mask
    if op == "zext":
        return v[0]
    if op == "sext":
        n = t.args[0].width
        return v[0] | (mask ^ ((1 << n) - 1)) if v[0] >> (n - 1) else v[0]
    if op == "mux":
        return v[1] if v[0] else v[2]
    if op in REDUCES:
        full = (1 << t.args[0].width) - 1
        return {"redand": int(v[0] == full), "redor": int(v[0] != 0), "redxor": bin(v[0]).count("1") & 1}[op]
    if op in COMPARES:
        p, q = v
        return int({"eq": p == q, "ne": p != q, "lt": p < q, "le": p <= q, "gt": p > q, "ge": p >= q}[op])
    if op == "not":
        return ~v[0] & mask
    if op == "neg":
        return -v[0] & mask
    if op == "shl":
        return (v[0] << v[1]) & mask if v[1] < t.width else 0
    if op == "shr":
        return v[0] >> v[1] if v[1] < t.width else 0
    p, q = v
    return {"add": p + q, "sub": p - q, "mul": p * q, "and": p & q, "or": p | q, "xor": p ^ q}[op] & mask


def subterms(t: Term) -> Iterator[Term]:
    """Every structurally distinct node of the term once, operands before the nodes that use them
    (iterative: a shared DAG is walked in its own size, not as the tree it unfolds to)."""
    done: set[Term] = set()
    todo: list[tuple[Term, bool]] = [(t, False)]
    while todo:
        x, expanded = todo.pop()
        if x in done:
            continue
        if expanded:
            done.add(x)
            yield x
            continue
        todo.append((x, True))
        todo.extend((a, False) for a in reversed(x.args) if a not in done)


def variables(t: Term) -> dict[str, int]:
    """The term's variables and their widths."""
    return {x.name: x.width for x in subterms(t) if x.op == "var"}
