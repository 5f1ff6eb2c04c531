"""sequential_invariant: registers that induction proves constant, or equal to another register, from reset.

Claims come from the register structure of the top module (``registers.clocked_blocks``): a register
whose reset branch loads a constant may be that constant forever (a flag whose set condition is
unreachable given a counter's bound); two registers of one width reset to the same constant may hold the
same value in every reachable state (loaded identically). Every claim is checked at once on the design
by ``formal.invariants`` (PDR from the reset sequence of the equivalence check, remembered per text);
only proven ones become rewrites:

- ``R == C``: every load of R outside its reset branch loads C instead (the flop then always holds its
  reset value; synthesis replaces it by the constant and removes the logic that only fed it);
- ``R2 == R1``: every read of R2 reads R1 instead (R2, no longer read and not a port, goes away).

The evaluation proves each child against its parent as for any RTL change; the search here only spares
the proposals the proof would refute.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field

from ...candidate import Candidate
from ...formal.invariants import Claim, InvariantJob, find
from ..state import MoveContext, State
from .expr import Syntax, Widths, literal, unparen
from .registers import clocked_blocks
from .rtl import RtlMove
from .specialise import Specialised
from .verilog import Edit, K, modules_named, node_text, walk

MAX_CLAIMS = 24  # claims checked per design (one PDR run over all of them)
CPU_S = 8.0  # that run's CPU budget
CACHE = 64  # design texts remembered
NAMES = (K.IdentifierName, K.IdentifierSelectName)
ASSIGNS = (K.NonblockingAssignmentExpression, K.AssignmentExpression)

_cache: dict[str, frozenset[Claim]] = {}


@dataclass
class Register:
    """One register of the top module: its width, reset constant, and the loads outside the reset branch."""

    name: str
    width: int
    reset: int | None = None
    loads: list[Syntax] = field(default_factory=list)  # whole-register nonblocking assignments
    plain: bool = True  # only whole-register assignments, in one clocked block


def _lhs_name(assign: Syntax) -> str | None:
    lhs = assign.left
    return str(lhs.identifier.valueText) if lhs.kind == K.IdentifierName else None


def registers(mod: Syntax, widths: dict[str, int]) -> dict[str, Register]:
    """The registers of ``mod``'s clocked blocks with a reset branch, by name."""
    out: dict[str, Register] = {}
    blocks: dict[str, int] = {}
    for b, cb in enumerate(clocked_blocks(mod)):
        for n in walk(cb.block):
            if n.kind != K.NonblockingAssignmentExpression:
                continue
            name = _lhs_name(n)
            if name is None:  # a select or a concatenation: the targets' other bits are not claimed
                for m in walk(n.left):
                    if m.kind in NAMES and m.identifier.valueText in out:
                        out[m.identifier.valueText].plain = False
                    if m.kind in NAMES:
                        blocks[m.identifier.valueText] = -1
                continue
            if blocks.setdefault(name, b) != b or name not in widths or cb.reset_stmt is None:
                out.pop(name, None)
                blocks[name] = -1
                continue
            reg = out.setdefault(name, Register(name, widths[name]))
            in_reset = cb.reset_stmt.sourceRange.start.offset <= n.sourceRange.start.offset \
                < cb.reset_stmt.sourceRange.end.offset
            if in_reset:
                lit = literal(unparen(n.right))
                reg.reset = lit[0] if lit is not None and lit[0] >= 0 else None
            else:
                reg.loads.append(n)
    return {n: r for n, r in out.items() if r.plain and blocks.get(n) != -1 and r.reset is not None}


def _range(mod: Syntax, text: str, name: str) -> str | None:
    """The declared packed range of ``name`` as written (``""`` for a scalar), None when not found."""
    for n in walk(mod):
        if n.kind == K.Declarator and n.name.valueText == name:
            p = n.parent
            while p is not None and p.kind not in (K.DataDeclaration, K.NetDeclaration, K.ImplicitAnsiPort,
                                                   K.PortDeclaration):
                p = p.parent
            decl = node_text(p, text) if p is not None else None
            if decl is None:
                return None
            m = re.search(r"\[[^\]]*\]", decl.split(name)[0])
            return re.sub(r"\s", "", m.group(0)) if m else ""
    return None


def claims(regs: dict[str, Register]) -> list[Claim]:
    """Constant claims first (cheapest to use), then equal pairs of one width and reset value."""
    out = [Claim(r.name, r.width, value=r.reset) for r in regs.values() if r.loads]
    names = sorted(regs)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            ra, rb = regs[a], regs[b]
            if ra.width == rb.width and ra.reset == rb.reset:
                out.append(Claim(b, rb.width, other=a))
    return out[:MAX_CLAIMS]


def _is_target(n: Syntax) -> bool:
    p = n.parent
    return p is not None and p.kind in ASSIGNS and p.left.sourceRange.start.offset == n.sourceRange.start.offset


def constant_site(reg: Register) -> list[Edit]:
    """Every load of ``reg`` outside its reset loads its reset constant."""
    c = f"{reg.width}'d{reg.reset}"
    out = []
    for a in reg.loads:
        lit = literal(unparen(a.right))
        if lit is None or lit[0] != reg.reset:
            r = a.right.sourceRange
            out.append(Edit(r.start.offset, r.end.offset, c))
    return out


def equal_site(mod: Syntax, keep: str, drop: str) -> list[Edit]:
    """Every read of ``drop`` reads ``keep``."""
    out = []
    for n in walk(mod):
        if n.kind in NAMES and n.identifier.valueText == drop and not _is_target(n):
            r = n.identifier.range
            out.append(Edit(r.start.offset, r.end.offset, keep))
    return out


class DesignFilesMove(RtlMove):
    """An RTL move whose proofs read the whole design: the files besides the one it rewrites (submodules)."""

    def __init__(self) -> None:
        self._others: dict[str, str] = {}

    def view(self, cand: Candidate, index: int) -> Specialised | None:
        self._others = {f"f{j}_{n.rsplit('/', 1)[-1]}": t for j, (n, t) in enumerate(cand.files) if j != index}
        return super().view(cand, index)


class SequentialInvariant(DesignFilesMove):
    """Replace a register proven constant by its constant, or one proven equal to another by that other."""

    name = "sequential_invariant"
    requires = "fixed-parameters"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        design = ctx.design
        out: list[list[Edit]] = []
        for mod in modules_named(tree, design.top):
            regs = registers(mod, Widths(tree).get())
            proven = self.proven(text, ctx, claims(regs))
            ports = {p.name for p in design.interface.all_ports()}
            for c in sorted(proven, key=Claim.describe):
                if c.other is None:
                    site = constant_site(regs[c.reg])
                else:
                    keep, drop = c.other, c.reg
                    if drop in ports:
                        keep, drop = drop, keep
                    if drop in ports or _range(mod, text, keep) != _range(mod, text, drop):
                        continue
                    site = equal_site(mod, keep, drop)
                if site:
                    out.append(site)
        return out

    def proven(self, text: str, ctx: MoveContext, found: list[Claim]) -> frozenset[Claim]:
        """The claims the invariant search proves on this design (remembered per text)."""
        if not found:
            return frozenset()
        eq = ctx.design.verification.equivalence
        files = {**self._others, "hh_top.v": text}
        job = InvariantJob(files, ctx.design.top, ctx.design.interface, tuple(found), eq.reset_cycles,
                           dict(eq.reset_inputs), CPU_S)
        key = hashlib.sha256(repr((sorted(files.items()), job.top, job.iface, job.claims, job.reset_cycles,
                                   sorted(job.reset_inputs.items()))).encode()).hexdigest()
        if key not in _cache:
            if len(_cache) >= CACHE:
                del _cache[next(iter(_cache))]
            idx = find(job, ctx.design.limits)
            _cache[key] = frozenset(job.claims[i] for i in idx)
        return _cache[key]

    def propose(self, state: State, ctx: MoveContext, rng: random.Random) -> State | None:
        if not self.applies(ctx):
            return None
        return super().propose(state, ctx, rng)

    def neighbours(self, state: State, ctx: MoveContext, rng: random.Random) -> list[State]:
        return super().neighbours(state, ctx, rng) if self.applies(ctx) else []

    @staticmethod
    def applies(ctx: MoveContext) -> bool:
        """A clocked design with a reset: registers have a state from which claims can hold."""
        design = ctx.design
        return design is not None and design.interface.sequential and design.interface.reset is not None
