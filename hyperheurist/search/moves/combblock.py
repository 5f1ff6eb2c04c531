"""Combinational ``always`` blocks executed symbolically: what each variable holds at the block's end.

``egraph.lift`` states one assignment at a time; a block of several statements, ``if``s and ``for``
loops (a ripple carry chain, a bit-by-bit comparator, a decoder written as a loop) is a function too.
Here a block is run once with every value a term: loops are unrolled (their bounds and steps must fold
to constants, at most ``MAX_STEPS`` statements in all), an ``if`` whose condition is not constant runs
both arms and merges every bit by a ``mux``, and every variable is kept bit by bit, so a write to
``c[i+1]`` is exact. Expressions are bound by ``egraph.bind`` (the IEEE sizing rules), names read
through the values assigned so far; a plain ``case`` is an ``if`` chain. Anything else (a read of a
bit not yet written, a latch, a timing control, a function call) leaves the block out: never guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pyslang import ast

from ...egraph.bind import Binder, Bound, Unliftable, resize, truthy
from ...egraph.ir import Term, TermError, const, evaluate, node, subterms
from ...hdl.parse import Syntax, elaborate, parse

S = ast.StatementKind
E = ast.ExpressionKind
MAX_STEPS = 4096  # statements executed per block (an unrolled loop's body counts once per iteration)
INCREMENTS = {"Postincrement": 1, "Preincrement": 1, "Postdecrement": -1, "Predecrement": -1}

Bits = list[Term | None]


@dataclass(frozen=True)
class Block:
    """One combinational block: its span in the text, each module-level variable it assigns with the
    term it holds at the end (over module-level names only), and the ``[left:right]`` of vectors read."""

    start: int
    end: int
    outputs: dict[str, Term]
    ranges: dict[str, tuple[int, int]]
    loops: int  # for-loops in the block


class _Binder(Binder):
    """Names read through the executor's values; selects by indices that fold to constants."""

    def __init__(self, env: dict[str, Bits]) -> None:
        super().__init__()
        self.env = env

    def named(self, e: Bound, w: int) -> Term:
        sym = e.symbol
        bits = self.env.get(str(sym.name)) if isinstance(sym, ast.VariableSymbol) else None
        if bits is None:
            return super().named(e, w)
        if sym.type.hasFixedRange:
            r = sym.type.fixedRange
            self.ranges[sym.name] = (int(r.left), int(r.right))
        if any(b is None for b in bits) or len(bits) != w:
            raise Unliftable(f"{sym.name} read before it is written")
        return word([b for b in bits if b is not None])

    def select(self, e: Bound, w: int) -> Term:
        """A bit or part select whose indices fold to constants (a loop variable's value included)."""
        base = e.value
        if base.kind != E.NamedValue or not base.type.hasFixedRange:
            raise Unliftable("select of something other than a vector")
        r = base.type.fixedRange
        left, right = int(r.left), int(r.right)
        if e.kind == E.ElementSelect:
            indices = [constant_of(self.term(e.selector))] * 2
        else:
            kind = str(e.selectionKind).split(".")[-1]
            i, j = constant_of(self.term(e.left)), constant_of(self.term(e.right))
            indices = {"Simple": [i, j], "IndexedUp": [i, i + j - 1], "IndexedDown": [i - j + 1, i]}[kind]
        pos = sorted(x - right if left >= right else right - x for x in indices)
        if pos[0] < 0 or pos[1] >= int(base.type.bitWidth) or pos[1] - pos[0] + 1 != w:
            raise Unliftable("select outside the vector")
        bits = self.env.get(str(base.symbol.name)) if isinstance(base.symbol, ast.VariableSymbol) else None
        part = split(self.term(base)) if bits is None else bits
        taken = part[pos[0]:pos[1] + 1]
        if any(b is None for b in taken):
            raise Unliftable(f"{base.symbol.name} read before it is written")
        return word([b for b in taken if b is not None])


_FOLDED: dict[Term, Term] = {}  # fixed points and results, kept while one block runs (``execute`` clears it)


def folded(t: Term) -> Term:
    """``t`` with operators of constant operands folded and muxes of a constant select resolved, every
    node folded once per block (values read again and again are not walked again: a 16-step counting
    loop walked its whole history at every bit otherwise)."""
    todo = [(t, False)]
    while todo:
        x, expanded = todo.pop()
        if x in _FOLDED:
            continue
        if not expanded:
            todo.append((x, True))
            todo += [(a, False) for a in x.args if a not in _FOLDED]
            continue
        args = tuple(_FOLDED[a] for a in x.args)
        if x.op == "mux" and args[0].op == "const":
            out = args[1] if args[0].value else args[2]
        elif x.op == "mux" and args[1] == args[2]:
            out = args[1]
        elif args and all(a.op == "const" for a in args):
            out = const(evaluate(Term(x.op, x.width, args, x.name, x.value), {}), x.width)
        elif any(n is not a for n, a in zip(args, x.args, strict=True)):
            out = Term(x.op, x.width, args, x.name, x.value)
        else:
            out = x
        _FOLDED[x] = out
        _FOLDED.setdefault(out, out)
    return _FOLDED[t]


def word(bits: list[Term]) -> Term:
    """The 1-bit terms (least significant first) as one word, constants folded."""
    if len(bits) == 1:
        return bits[0]
    return folded(node("concat", len(bits), *reversed(bits)))


def constant_of(t: Term) -> int:
    f = folded(t)
    if f.op != "const":
        raise Unliftable("a loop bound, step or index that is not constant")
    return f.value


def split(t: Term) -> Bits:
    """A term's bits, least significant first (constants as constant bits, concatenations and slices
    seen through, so a bit written in a loop is read back as itself)."""
    f = folded(t)
    return [bit(f, i) for i in range(f.width)]


def bit(t: Term, i: int) -> Term:
    """Bit ``i`` of ``t`` as a 1-bit term, through concatenations, slices and zero extensions."""
    while True:
        if t.width == 1:
            return t
        if t.op == "const":
            return const((t.value >> i) & 1, 1)
        if t.op == "slice":
            t, i = t.args[0], i + t.value
        elif t.op == "concat":
            for part in reversed(t.args):
                if i < part.width:
                    t = part
                    break
                i -= part.width
        elif t.op == "zext":
            if i >= t.args[0].width:
                return const(0, 1)
            t = t.args[0]
        else:
            return node("slice", 1, t, value=i)


class Executor:
    """Runs one block's statements over ``env`` (variable name -> its bits, None while unwritten)."""

    def __init__(self) -> None:
        self.env: dict[str, Bits] = {}
        self.binder = _Binder(self.env)
        self.steps = 0
        self.loops = 0
        self.locals: set[str] = set()

    def term(self, e: Bound) -> Term:
        try:
            return self.binder.term(e)
        except TermError as err:
            raise Unliftable(str(err)) from err

    def run(self, s: Bound) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise Unliftable(f"more than {MAX_STEPS} statements")
        k = s.kind
        if k == S.Empty:
            return
        if k == S.Block:
            if str(s.blockKind).split(".")[-1] != "Sequential":
                raise Unliftable("fork")
            self.run(s.body)
        elif k == S.List:
            for x in s.list:
                self.run(x)
        elif k == S.VariableDeclaration:
            sym = s.symbol
            self.locals.add(str(sym.name))
            self.env[str(sym.name)] = [None] * int(sym.type.bitWidth)
            if sym.initializer is not None:
                self.env[str(sym.name)] = split(self.term(sym.initializer))
        elif k == S.ExpressionStatement:
            self.expression(s.expr)
        elif k == S.Conditional:
            self.conditional(s)
        elif k == S.ForLoop:
            self.loop(s)
        elif k == S.Case:
            self.case(s)
        else:
            raise Unliftable(f"{str(k).split('.')[-1]} statement")

    def expression(self, e: Bound) -> None:
        if e.kind == E.UnaryOp and str(e.op).split(".")[-1] in INCREMENTS:
            sym = e.operand
            if sym.kind != E.NamedValue:
                raise Unliftable("increment of a select")
            delta = INCREMENTS[str(e.op).split(".")[-1]]
            old = self.term(sym)
            self.assign(sym, node("add", old.width, old, const(delta, old.width)))
            return
        if e.kind != E.Assignment or e.isNonBlocking or e.timingControl is not None:
            raise Unliftable("not a blocking assignment")
        if e.isCompound:
            raise Unliftable("compound assignment")
        self.assign(e.left, self.term(e.right))

    def assign(self, left: Bound, value: Term) -> None:
        """Write ``value`` (already the target's width) to a name, a constant select of one, or a
        concatenation of those."""
        if left.kind == E.Concatenation:
            lo = value.width
            for part in left.operands:
                w = int(part.type.bitWidth)
                lo -= w
                self.assign(part, folded(node("slice", w, value, value=lo)))
            return
        base = left if left.kind == E.NamedValue else left.value
        if base.kind != E.NamedValue or not isinstance(base.symbol, ast.VariableSymbol):
            raise Unliftable("assignment to something other than a variable")
        sym = base.symbol
        name, width = str(sym.name), int(sym.type.bitWidth)
        bits = self.env.setdefault(name, [None] * width)
        new = split(value)
        if left.kind == E.NamedValue:
            bits[:] = new
            return
        if not sym.type.hasFixedRange:
            raise Unliftable("select of something other than a vector")
        r = sym.type.fixedRange
        left_i, right_i = int(r.left), int(r.right)
        if left.kind == E.ElementSelect:
            lo_i = hi_i = constant_of(self.term(left.selector))
        elif str(left.selectionKind).split(".")[-1] == "Simple":
            lo_i, hi_i = constant_of(self.term(left.left)), constant_of(self.term(left.right))
        else:
            raise Unliftable("indexed part select target")
        pos = sorted(i - right_i if left_i >= right_i else right_i - i for i in (lo_i, hi_i))
        if pos[0] < 0 or pos[1] >= width or pos[1] - pos[0] + 1 != len(new):
            raise Unliftable("write outside the vector")
        bits[pos[0]:pos[1] + 1] = new

    def conditional(self, s: Bound) -> None:
        conds = list(s.conditions)
        if len(conds) != 1 or conds[0].pattern is not None:
            raise Unliftable("conditional with patterns")
        self.branch(truthy(self.term(conds[0].expr)), s.ifTrue, s.ifFalse)

    def branch(self, cond: Term, if_true: Bound | None, if_false: Bound | list[tuple[Term, Bound | None]]) -> None:
        """Run ``if_true`` where ``cond`` holds, else ``if_false`` (a statement, or the remaining arms of a
        ``case`` as (condition, statement) pairs with the default last under a constant-1 condition),
        merging every bit both leave written by a ``mux``."""
        c = folded(cond)
        if c.op == "const":
            if c.value:
                if if_true is not None:
                    self.run(if_true)
            else:
                self.otherwise(if_false)
            return
        before = {n: list(b) for n, b in self.env.items()}
        if if_true is not None:
            self.run(if_true)
        taken = {n: list(b) for n, b in self.env.items()}
        self.env.clear()
        self.env.update({n: list(b) for n, b in before.items()})
        self.otherwise(if_false)
        for n in set(taken) | set(self.env):
            t = taken.get(n) or [None] * len(self.env[n])
            f = self.env.get(n) or [None] * len(t)
            self.env[n] = [None if x is None or y is None else x if x == y else folded(node("mux", 1, c, x, y))
                           for x, y in zip(t, f, strict=True)]

    def otherwise(self, arm: Bound | list[tuple[Term, Bound | None]]) -> None:
        if isinstance(arm, list):
            if arm:
                self.branch(arm[0][0], arm[0][1], arm[1:])
        elif arm is not None:
            self.run(arm)

    def case(self, s: Bound) -> None:
        """A plain ``case`` (no ``casez``/``casex``, no wildcard or signed items) as an ``if`` chain."""
        if str(s.condition).split(".")[-1] != "Normal" or str(s.check).split(".")[-1] not in (
                "None_", "Unique", "Priority"):
            raise Unliftable("casez, casex or case inside")
        sel = self.term(s.expr)
        arms: list[tuple[Term, Bound | None]] = []
        for item in s.items:
            hits = []
            for x in item.expressions:
                v = self.term(x)
                if x.type.isSigned or s.expr.type.isSigned:
                    raise Unliftable("signed case")
                w = max(v.width, sel.width)
                hits.append(node("eq", 1, resize(sel, w), resize(v, w)))
            cond = hits[0]
            for h in hits[1:]:
                cond = node("or", 1, cond, h)
            arms.append((cond, item.stmt))
        arms.append((const(1, 1), s.defaultCase))
        self.otherwise(arms)

    def loop(self, s: Bound) -> None:
        self.loops += 1
        for v in s.loopVars:
            self.locals.add(str(v.name))
            if v.initializer is None:
                raise Unliftable("loop variable without a start value")
            self.env[str(v.name)] = split(self.term(v.initializer))
        for init in s.initializers:
            self.expression(init)
        while constant_of(truthy(self.term(s.stopExpr))):
            self.run(s.body)
            for step in s.steps:
                self.expression(step)


def _combinational(sym: ast.ProceduralBlockSymbol) -> Bound | None:
    kind = str(sym.procedureKind).split(".")[-1]
    s: Bound = sym.body
    if kind == "AlwaysComb":
        return s
    if kind == "Always" and s.kind == S.Timed and s.timing.kind == ast.TimingControlKind.ImplicitEvent:
        return s.stmt
    return None


def execute(sym: ast.ProceduralBlockSymbol, text: str) -> Block | None:
    """The block's outputs, or None when it is no combinational block the executor states exactly."""
    body = _combinational(sym)
    syn: Syntax = sym.syntax
    if body is None or syn is None:
        return None
    r = syn.sourceRange
    ex = Executor()
    _FOLDED.clear()
    try:
        ex.run(body)
    except (Unliftable, TermError, RecursionError):
        return None
    finally:
        _FOLDED.clear()
    assigned = {n for n in ex.env if n not in ex.locals}
    outputs: dict[str, Term] = {}
    for name in sorted(assigned):
        bits = ex.env[name]
        if any(b is None for b in bits):
            return None  # a latch: some bit keeps its old value on some path
        t = word([b for b in bits if b is not None])
        if any(x.op == "var" and x.name in assigned | ex.locals for x in subterms(t)):
            return None  # reads a value of the block from before it ran: not a function of its inputs
        outputs[name] = t
    return Block(int(r.start.offset), int(r.end.offset), outputs, dict(ex.binder.ranges), ex.loops)


def blocks(text: str, tree: Syntax | None = None, run: Callable[..., Block | None] = execute) -> dict[str, list[Block]]:
    """Every block of every module of ``text`` the executor (``run``) states, by module name."""
    comp = elaborate([tree if tree is not None else parse(text)])
    out: dict[str, list[Block]] = {}
    stack = list(comp.getRoot().topInstances)
    while stack:
        inst = stack.pop(0)
        body = inst.body
        if body.name in out:
            continue
        if any(isinstance(p, ast.ParameterSymbol) and not p.isLocalParam for p in body.parameters):
            out[body.name] = []
            continue
        found = [run(m, text) for m in body if isinstance(m, ast.ProceduralBlockSymbol)]
        out[body.name] = [b for b in found if b is not None]
        stack += [m for m in body if isinstance(m, ast.InstanceSymbol)]
    return out


def support(terms: list[Term]) -> dict[str, int]:
    """The names the terms read, with their widths, in order of first appearance."""
    out: dict[str, int] = {}
    for t in terms:
        for x in subterms(t):
            if x.op == "var":
                out.setdefault(x.name, x.width)
    return out

