"""redundant_control: resets, enables (holds) and clears of registers whose effect no output can see.

A designer drops the reset of a data register whose every reader is qualified by a valid flag that is itself
reset, lets a delay line's stages shift every cycle when only the last one is observed under its valid, and
removes "clear when idle" or ``valid ? d : 0`` in front of a register read only under valid. Whether that is
allowed is a question about the design's reachable behaviour (sequential observability), not about names or
shapes, so this move asks the proof: for every register of the top module (all its assignments whole
``R <= ...`` nonblocking statements of one synchronous clocked block without loops) it builds

- ``reset``: R without its reset: R's assignments leave the block for a block of its own on the same clock,
  a copy of the block's load branches holding only R's loads (R no longer loads its reset value, nor holds
  while the reset is active);
- ``free``: the same, and R also loses its enables and clears: it loads its first non-constant right-hand
  side ``e`` in every cycle where nothing else is assigned (``R <= e;`` first in its block, later loads
  override it), its constant loads (a clear) are dropped, a load of ``c ? x : K`` (or ``c ? K : x``) with a
  constant arm loads ``x``, and loads of ``e`` itself are dropped as redundant;
- ``when:<s>``: when all of R's non-constant loads load one value ``v``: ``if (s) R <= v;`` alone, for each
  signal ``s`` of the ``if`` conditions over those loads and its negation (a skid register, cleared when
  consumed and loaded on a stall, becomes ``if (!(skid_valid)) skid <= in;``);
- ``clear``: between ``reset`` and ``free``: R loses its reset, its constant loads load the value of the nearest
  load before them (else ``e``) and ``c ? x : K`` loads ``x``, but it still holds where it held (a register
  stalled under back-pressure keeps its value).

Each variant is proven against the design as it stands (``rewrite.prove``, the equivalence check from the
reset sequence): first every register freed at once, else greedily register by register (widest first,
``free``, ``when:...``, ``clear``, then ``reset``), keeping what is proven, within ``MAX_PROOFS`` proofs; the
site offered is the largest proven set (remembered per design text). A register without a reset value starts
from an arbitrary value in the proof: ``write_aiger -zinit`` gives uninitialised flops a free first value
(``formal.miter``), the shared first value of same-named registers (``formal.inits``) still covers every start
of the child, and the 4-state engine starts them at X, which is a difference wherever the parent's output is
defined. So a reset whose value reaches an output, or a hold whose value is observed, is refuted
(tests/test_redundant_control.py).
The evaluation proves the child against its parent again, as for any RTL change.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

from ...rewrite.prove import ProofTask, accepted, prove_rewrite
from ...tempdirs import owned_tempdir
from ..state import MoveContext, State
from .expr import Syntax, literal, unparen
from .invariants import DesignFilesMove
from .registers import Clocked, clocked_blocks
from .rtl import line_span
from .verilog import Edit, K, apply_edits, modules_named, node_text, parse, syntax_errors, walk

MAX_PROOFS = 12  # proofs per design text (a few seconds each on small designs; widest registers are tried first)
MAX_ATOMS = 4  # condition signals tried as a register's only enable (each in both polarities)
PROOF_CPU_S = 10.0  # CPU budget of one proof
CACHE = 64  # design texts remembered
ASSIGNS = (K.NonblockingAssignmentExpression, K.AssignmentExpression)
LOOPS = (K.ForLoopStatement, K.LoopStatement, K.DoWhileStatement, K.ForeverStatement,
         K.ForeachLoopStatement)
STATEMENTS = (K.ConditionalStatement, K.CaseStatement, K.ExpressionStatement, K.SequentialBlockStatement)
Level = str  # "free", "when:<atom>", "clear" or "reset"

_cache: dict[str, list[tuple[tuple[str, Level], ...]]] = {}


@dataclass
class Reg:
    """A register the rewrite can take: its clocked block, its assignments there, and its widest guess."""

    name: str
    cb: Clocked
    resets: list[Syntax] = field(default_factory=list)  # assignment statements in the reset branch
    loads: list[Syntax] = field(default_factory=list)  # assignment statements elsewhere in the block
    width: int = 0


def _stmt(assign: Syntax) -> Syntax:
    return assign.parent  # the ExpressionStatement holding a nonblocking assignment


def _inside(node: Syntax, outer: Syntax) -> bool:
    r, o = node.sourceRange, outer.sourceRange
    return bool(o.start.offset <= r.start.offset and r.end.offset <= o.end.offset)


def _single_clock(cb: Clocked) -> bool:
    tc = cb.block.statement.timingControl
    return sum(1 for n in walk(tc) if n.kind == K.SignalEventExpression) == 1


def _loads_region(cb: Clocked) -> Syntax:
    """The statement holding the block's loads (its else branch, or its body)."""
    return cb.loads_parent if cb.loads_parent is not None else cb.loads[0]


def registers(mod: Syntax, text: str) -> list[Reg]:
    """The registers of ``mod`` this move can rewrite, widest first."""
    assigned: dict[str, list[Syntax]] = {}
    bad: set[str] = set()
    for n in walk(mod):
        if n.kind in ASSIGNS:
            if n.left.kind == K.IdentifierName:
                assigned.setdefault(n.left.identifier.valueText, []).append(n)
            else:
                bad.update(m.identifier.valueText for m in walk(n.left)
                           if m.kind in (K.IdentifierName, K.IdentifierSelectName))
        elif n.kind == K.ContinuousAssign:
            for a in walk(n):
                if a.kind == K.AssignmentExpression:
                    bad.update(m.identifier.valueText for m in walk(a.left)
                               if m.kind in (K.IdentifierName, K.IdentifierSelectName))
    widths = _declared_widths(mod)
    out: list[Reg] = []
    for cb in clocked_blocks(mod):
        if not _single_clock(cb) or not cb.loads or any(n.kind in LOOPS for n in walk(cb.block)):
            continue
        if node_text(cb.block, text) is None:
            continue
        for name, assigns in assigned.items():
            if name in bad or not all(a.kind == K.NonblockingAssignmentExpression and _inside(a, cb.block)
                                      for a in assigns):
                continue
            if not any(_inside(a, cb.block) for a in assigns) or any(_stmt(a).kind != K.ExpressionStatement
                                                                     for a in assigns):
                continue
            reg = Reg(name, cb, width=widths.get(name, 1))
            for a in assigns:
                in_reset = cb.reset_stmt is not None and _inside(a, cb.reset_stmt)
                (reg.resets if in_reset else reg.loads).append(_stmt(a))
            if reg.loads:
                out.append(reg)
    return sorted(out, key=lambda r: (-r.width, r.name))


def _declared_widths(mod: Syntax) -> dict[str, int]:
    """Packed widths of ``[H:L]`` declarations with literal bounds (1 otherwise): only orders the greedy search."""
    out: dict[str, int] = {}
    for d in walk(mod):
        if d.kind != K.Declarator:
            continue
        p = d.parent
        while p is not None and p.kind not in (K.DataDeclaration, K.ImplicitAnsiPort, K.PortDeclaration,
                                                K.NetDeclaration):
            p = p.parent
        w = 1
        if p is not None:
            for r in walk(p):
                if r.kind == K.SimpleRangeSelect:
                    hi, lo = literal(unparen(r.left)), literal(unparen(r.right))
                    if hi is not None and lo is not None:
                        w = abs(hi[0] - lo[0]) + 1
                    break
        out[d.name.valueText] = w
    return out


def _const(node: Syntax) -> bool:
    return literal(unparen(node)) is not None


def _null(stmt: Syntax, text: str) -> Edit:
    """Remove a statement: its line inside a begin/end, else a null statement (``if (c) ;``)."""
    r = stmt.sourceRange
    if stmt.parent is not None and stmt.parent.kind == K.SequentialBlockStatement:
        return Edit(*line_span(text, r.start.offset, r.end.offset), "")
    return Edit(r.start.offset, r.end.offset, ";")


def _default(reg: Reg, text: str) -> str | None:
    """The first non-constant right-hand side of ``reg``'s loads (its non-constant arm for ``c ? x : K``)."""
    for s in reg.loads:
        rhs = unparen(s.expr.right)
        if rhs.kind == K.ConditionalExpression:
            if _const(rhs.left) != _const(rhs.right):
                rhs = rhs.right if _const(rhs.left) else rhs.left
        if not _const(rhs):
            return node_text(rhs, text)
    return None


def _value(s: Syntax, text: str) -> str | None:
    """What a load statement loads, a constant arm of ``c ? x : K`` dropped (None: a constant)."""
    rhs = unparen(s.expr.right)
    if rhs.kind == K.ConditionalExpression and _const(rhs.left) != _const(rhs.right):
        rhs = rhs.right if _const(rhs.left) else rhs.left
    return None if _const(rhs) else node_text(rhs, text)


def atoms(reg: Reg, text: str) -> list[str]:
    """The signals (as written, negation stripped) of the ``if`` conditions over ``reg``'s non-constant loads,
    when every one of them loads the same value: each is a candidate enable on its own (``when:<atom>``)."""
    values = {_value(s, text) for s in reg.loads} - {None}
    if len(values) != 1:
        return []
    out: list[str] = []
    region = _loads_region(reg.cb)
    for s in reg.loads:
        if _value(s, text) is None:
            continue
        p = s.parent
        while p is not None and _inside(p, region):  # up to the region itself (its condition counts)
            if p.kind == K.ConditionalStatement:
                stack = [p.predicate.conditions[0].expr]
                while stack:
                    e = unparen(stack.pop())
                    if e.kind in (K.LogicalAndExpression, K.LogicalOrExpression):
                        stack += [e.right, e.left]
                    elif e.kind == K.UnaryLogicalNotExpression:
                        stack.append(e.operand)
                    else:
                        a = node_text(e, text)
                        if a is not None and a not in out:
                            out.append(a)
            same = (p.sourceRange.start.offset, p.sourceRange.end.offset) == (region.sourceRange.start.offset,
                                                                               region.sourceRange.end.offset)
            p = None if same else p.parent
    return out[:MAX_ATOMS]


def _when(reg: Reg, atom: str, text: str) -> str | None:
    """``reg`` loading its one value whenever ``atom`` holds (``!`` prefix: whenever it does not)."""
    values = {_value(s, text) for s in reg.loads} - {None}
    if len(values) != 1:
        return None
    return (f"\n\n  // {reg.name}: no reset; loads whenever {atom}\n"
            f"  always @({reg.cb.clock_event}) if ({atom}) {reg.name} <= {values.pop()};")


def _own_block(reg: Reg, level: Level, text: str) -> str | None:
    """The clocked block of ``reg`` alone: a copy of its block's load branches with only its loads."""
    if level.startswith("when:"):
        return _when(reg, level[5:], text)
    region = _loads_region(reg.cb)
    sp = (region.sourceRange.start.offset, region.sourceRange.end.offset)
    mine = {s.sourceRange.start.offset for s in reg.loads}
    e = _default(reg, text) if level != "reset" else None
    if level != "reset" and e is None:
        return None
    edits: list[Edit] = []
    gone: list[tuple[int, int]] = []  # statements that assign nothing of ``reg``: dropped from the copy
    for n in walk(region):
        r = n.sourceRange
        if n.kind not in STATEMENTS or n is region or any(a <= r.start.offset < b for a, b in gone):
            continue
        if not any(a.kind == K.NonblockingAssignmentExpression and _stmt(a).sourceRange.start.offset in mine
                   for a in walk(n)):
            edits.append(_null(n, text))
            gone.append((r.start.offset, r.end.offset))
    last = e  # the value the nearest load before a clear loads (a clear then loads it instead)
    for n in walk(region):
        if n.kind != K.NonblockingAssignmentExpression:
            continue
        s = _stmt(n)
        if s.sourceRange.start.offset not in mine:
            continue
        if level == "reset":
            continue
        rhs = unparen(n.right)
        last = _value(s, text) or last
        if level == "free" and (_const(rhs) or node_text(rhs, text) == e):
            edits.append(_null(s, text))
        elif _const(rhs):
            r = n.right.sourceRange
            edits.append(Edit(r.start.offset, r.end.offset, f"({last})"))
        elif rhs.kind == K.ConditionalExpression and _const(rhs.left) != _const(rhs.right):
            keep = rhs.right if _const(rhs.left) else rhs.left
            r = n.right.sourceRange
            edits.append(Edit(r.start.offset, r.end.offset, node_text(keep, text) or ""))
    shifted = [Edit(ed.start - sp[0], ed.end - sp[0], ed.text) for ed in edits]
    body = apply_edits(text[sp[0]:sp[1]], shifted)
    if body is None:
        return None
    body = "\n".join(line for line in body.splitlines() if line.strip())
    first = f"    {reg.name} <= {e};\n" if level == "free" else ""
    return (f"\n\n  // {reg.name}: {WHAT[level]}\n"
            f"  always @({reg.cb.clock_event}) begin\n{first}    {body}\n  end")


WHAT = {"free": "no reset, enable or clear", "clear": "no reset or clear", "reset": "no reset"}


def rewrite(text: str, regs: dict[str, Reg], chosen: tuple[tuple[str, Level], ...]) -> list[Edit] | None:
    """The edits that give each chosen register its own block at its level."""
    edits: list[Edit] = []
    blocks: dict[int, list[str]] = {}
    ends: dict[int, int] = {}
    for name, level in chosen:
        reg = regs[name]
        for s in (*reg.resets, *reg.loads):
            edits.append(_null(s, text))
        own = _own_block(reg, level, text)
        if own is None:
            return None
        key = reg.cb.block.sourceRange.end.offset
        blocks.setdefault(key, []).append(own)
        ends[key] = key
    edits += [Edit(at, at, "".join(blocks[at])) for at in sorted(ends)]
    return edits


class RedundantControl(DesignFilesMove):
    """Drop a register's reset, enable or clear where the proof from reset shows no output sees it."""

    name = "redundant_control"
    requires = "fixed-parameters"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        design = ctx.design
        out: list[list[Edit]] = []
        for mod in modules_named(tree, design.top):
            regs = {r.name: r for r in registers(mod, text)}
            for chosen in self.proven(text, ctx, regs):
                site = rewrite(text, regs, chosen)
                if site:
                    out.append(site)
        return out

    def proven(self, text: str, ctx: MoveContext, regs: dict[str, Reg]) -> list[tuple[tuple[str, Level], ...]]:
        """The largest set of (register, level) the proof accepts on this design (remembered per text)."""
        if not regs:
            return []
        key = hashlib.sha256(repr((sorted(self._others.items()), text, ctx.design.top,
                                   ctx.design.verification.equivalence.model_dump_json(),
                                   ctx.design.interface.model_dump_json())).encode()).hexdigest()
        if key in _cache:
            return _cache[key]
        others = "\n".join(self._others.values())
        budget = [MAX_PROOFS]

        def holds(chosen: tuple[tuple[str, Level], ...]) -> bool:
            edits = rewrite(text, regs, chosen)
            new = None if edits is None else apply_edits(text, edits)
            if new is None or new == text or budget[0] <= 0 or syntax_errors(parse(new)):
                return False
            budget[0] -= 1
            task = ProofTask.for_design(f"{others}\n{text}", f"{others}\n{new}", ctx.design,
                                        timeout_s=PROOF_CPU_S)
            with owned_tempdir("hh-redundant-") as folder:
                return accepted(prove_rewrite(task, folder))

        free: Level = "free"
        everything = tuple((n, free) for n in regs if _default(regs[n], text) is not None)
        found: tuple[tuple[str, Level], ...] = ()
        if everything and holds(everything):
            found = everything
        else:
            for name, reg in regs.items():
                whens = [f"when:{w}" for a in atoms(reg, text) for w in (a, f"!({a})")]
                levels: list[Level] = ["free", *whens, "clear", *(["reset"] if reg.resets else [])]
                for level in levels:
                    if level in ("free", "clear") and _default(reg, text) is None:
                        continue
                    if holds((*found, (name, level))):
                        found = (*found, (name, level))
                        break
        result = [found] if found else []
        if len(_cache) >= CACHE:
            del _cache[next(iter(_cache))]
        _cache[key] = result
        return result

    def propose(self, state: State, ctx: MoveContext, rng: random.Random) -> State | None:
        return super().propose(state, ctx, rng) if self.applies(ctx) else None

    def neighbours(self, state: State, ctx: MoveContext, rng: random.Random) -> list[State]:
        return super().neighbours(state, ctx, rng) if self.applies(ctx) else []

    @staticmethod
    def applies(ctx: MoveContext) -> bool:
        """A clocked design with a reset: its registers have a reset state to be proven equal from."""
        design = ctx.design
        return design is not None and design.interface.sequential and design.interface.reset is not None
