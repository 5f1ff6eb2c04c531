"""bit_invariant: register bits that induction proves constant, or equal (or inverted) to another
register's bit, in every state reachable from reset, stop being flops.

The registers: those of the top module whose every assignment sits in one clocked block of nonblocking
assignments (``registers.clocked_blocks``), declared ``reg``/``logic`` ``[N:0]``, scalar, or ``integer``
(in the body, or as an ANSI ``output reg`` port). Which of their bits are worth claiming about is found from
the design's behaviour, not its text (``formal.bitclaims``: a random simulation from reset filters the
candidates, one PDR batch proves them; remembered per design text). A register R with proven bits becomes

    <R's declaration, renamed R_ff>            // the flops, loaded exactly as before
    wire <signed> [W-1:0] R;                   // what every read of R reads
    assign R = {..., R_ff[i], ..., 1'b0, ..., Q[j], ~Q[k], ...};

each bit the flop ``R_ff[i]`` where nothing is proven about it, its constant, or the other register's bit
(the representative of its class, never itself replaced). Reads keep their value, width and signedness: in
every reachable state the wire equals the old register (the claims), and the flops load what R loaded, so
by induction the two designs agree from reset. Bits of ``R_ff`` no longer read (an ``integer`` counter's
upper bits, a shifted copy's bits) leave the netlist in synthesis with all logic that only fed them: the
register is narrowed without changing the width in which its next value is computed. When no bit of R is
kept, R is the continuous assign alone: its updates are dropped. The evaluation proves every child against
its parent (``rewrite.prove``), from the reset sequence the claims assume.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field

from ...formal.bitclaims import MAX_BITS, BitJob, find_bits
from ...formal.invariants import Claim
from ..state import MoveContext
from .expr import SIGNED_TYPES, Syntax, Widths
from .invariants import DesignFilesMove
from .registers import clocked_blocks
from .rtl import line_span
from .verilog import Edit, K, modules_named, node_text, walk

CPU_S = 8.0  # the PDR batch's CPU budget
CACHE = 64  # design texts remembered
ASSIGN_KINDS = {K.NonblockingAssignmentExpression, K.AssignmentExpression, K.AddAssignmentExpression,
                K.SubtractAssignmentExpression, K.MultiplyAssignmentExpression, K.DivideAssignmentExpression,
                K.ModAssignmentExpression, K.AndAssignmentExpression, K.OrAssignmentExpression,
                K.XorAssignmentExpression, K.LogicalLeftShiftAssignmentExpression,
                K.LogicalRightShiftAssignmentExpression, K.ArithmeticLeftShiftAssignmentExpression,
                K.ArithmeticRightShiftAssignmentExpression}
RANGE = re.compile(r"^\[\s*(\d+)\s*:\s*0\s*\]$")

_cache: dict[str, tuple[Claim, ...]] = {}


@dataclass
class BitRegister:
    """A register the rewrite can take: width, signedness, its declarator and the targets of its loads."""

    name: str
    width: int
    signed: bool
    declarator: Syntax
    port: bool  # an ANSI ``output reg`` port (else a body declaration)
    targets: list[Syntax] = field(default_factory=list)  # the LHS name nodes of its assignments
    whole: bool = True  # every assignment is ``R <= ...;`` or ``R[..] <= ...;`` as a statement of its own


def _declaration(d: Syntax) -> Syntax | None:
    p = d.parent
    while p is not None and p.kind not in (K.DataDeclaration, K.ImplicitAnsiPort, K.PortDeclaration,
                                            K.NetDeclaration):
        p = p.parent
    return p


def _shape(d: Syntax, text: str, width: int) -> tuple[bool, bool] | None:
    """(signed, port) when ``d`` declares a register the rewrite can take, else None."""
    decl = _declaration(d)
    if decl is None or len(d.dimensions) or decl.kind in (K.PortDeclaration, K.NetDeclaration):
        return None
    if decl.kind == K.DataDeclaration:
        ty = decl.type
        if ty.kind == K.IntegerType:
            return (True, False) if width == 32 else None
        if ty.kind not in (K.RegType, K.LogicType):
            return None
    else:
        header = decl.header
        if header.kind != K.VariablePortHeader or header.direction.valueText != "output" \
                or header.dataType.kind not in (K.RegType, K.LogicType) or _inherited_next(decl):
            return None
        ty = header.dataType
    kind_text = node_text(ty, text)
    if kind_text is None:
        return None
    dims = [node_text(x, text) or "?" for x in ty.dimensions]
    if len(dims) > 1 or (dims and not ((m := RANGE.match(re.sub(r"\s", "", dims[0]))) and int(m[1]) + 1 == width)) \
            or (not dims and width != 1):
        return None
    return bool(SIGNED_TYPES.search(kind_text)), decl.kind == K.ImplicitAnsiPort


def _inherited_next(port: Syntax) -> bool:
    """The port after ``port`` in the list inherits its direction and type (``output reg [7:0] a, b``)."""
    items = [x for x in port.parent if x.kind == K.ImplicitAnsiPort] if port.parent is not None else []
    for a, b in zip(items, items[1:], strict=False):
        if a is port or a.sourceRange.start.offset == port.sourceRange.start.offset:
            return b.header.kind == K.VariablePortHeader and not b.header.direction.valueText
    return False


def bit_registers(mod: Syntax, text: str, widths: dict[str, int]) -> dict[str, BitRegister]:
    """The registers of ``mod`` the rewrite can take, in declaration order."""
    blocks = clocked_blocks(mod)
    spans = [(b.block.sourceRange.start.offset, b.block.sourceRange.end.offset) for b in blocks]
    home: dict[str, int] = {}
    targets: dict[str, list[Syntax]] = {}
    whole: dict[str, bool] = {}
    for n in walk(mod):
        if n.kind not in ASSIGN_KINDS and n.kind != K.ContinuousAssign:
            continue
        lhs_nodes = [n.left] if n.kind in ASSIGN_KINDS else []
        if n.kind == K.ContinuousAssign:
            for a in walk(n):
                if a.kind == K.AssignmentExpression:
                    home.update({x.identifier.valueText: -1 for x in walk(a.left)
                                 if x.kind in (K.IdentifierName, K.IdentifierSelectName)})
            continue
        off = n.sourceRange.start.offset
        b = next((i for i, (s, e) in enumerate(spans) if s <= off < e), -1)
        if n.kind != K.NonblockingAssignmentExpression:
            b = -1
        lhs = lhs_nodes[0]
        items = list(lhs.expressions) if lhs.kind == K.ConcatenationExpression else [lhs]
        for item in items:
            named = [x for x in walk(item) if x.kind in (K.IdentifierName, K.IdentifierSelectName)]
            if item.kind not in (K.IdentifierName, K.IdentifierSelectName):
                home.update({x.identifier.valueText: -1 for x in named})
                continue
            name = item.identifier.valueText
            if any(x is not item and x.identifier.valueText == name for x in named):
                b = -1  # R[R[0]] <= ...: a read inside the target
            if home.setdefault(name, b) != b:
                home[name] = -1
            targets.setdefault(name, []).append(item)
            whole[name] = whole.get(name, True) and lhs.kind != K.ConcatenationExpression \
                and n.parent is not None and n.parent.kind == K.ExpressionStatement
    out: dict[str, BitRegister] = {}
    for d in walk(mod):
        if d.kind != K.Declarator:
            continue
        name = d.name.valueText
        if home.get(name, -1) < 0 or name not in widths or name in out:
            continue
        shape = _shape(d, text, widths[name])
        if shape is not None:
            out[name] = BitRegister(name, widths[name], shape[0], d, shape[1], targets[name], whole[name])
    return out


def bit_facts(claims: tuple[Claim, ...]) -> dict[str, dict[int, tuple[int, str, int, bool]]]:
    """Per register, per proven bit: (constant or -1, other register, its bit, inverted)."""
    out: dict[str, dict[int, tuple[int, str, int, bool]]] = {}
    for c in claims:
        if c.bit is None:
            continue
        fact = (-1, c.other, c.other_bit or 0, c.inverted) if c.other else (int(c.value or 0), "", 0, False)
        out.setdefault(c.reg, {})[c.bit] = fact
    return out


def concat(reg: BitRegister, kept: str, facts: dict[int, tuple[int, str, int, bool]],
           widths: dict[str, int]) -> str:
    """The value of ``reg`` from its flops ``kept``, constants and other registers' bits, MSB first, runs
    merged (``kept[5:3]``, ``3'b000``, ``~q[2:0]``)."""
    atoms: list[tuple[str, str, int, bool]] = []  # (kind, name, bit, inverted), kind in keep/const/bit
    for i in range(reg.width - 1, -1, -1):
        f = facts.get(i)
        if f is None:
            atoms.append(("keep", kept, i, False))
        elif f[0] >= 0:
            atoms.append(("const", "", f[0], False))
        elif f[1] == reg.name:  # another bit of its own: read from the flops
            atoms.append(("keep", kept, f[2], f[3]))
        else:
            atoms.append(("bit", f[1], f[2], f[3]))
    parts: list[str] = []
    k = 0
    while k < len(atoms):
        kind, name, bit, inv = atoms[k]
        j = k + 1
        while kind != "const" and j < len(atoms) and atoms[j] == atoms[k]:
            j += 1  # one bit repeated: a sign extension
        if j > k + 1:
            one = name if (reg.width if kind == "keep" else widths.get(name, 0)) == 1 else f"{name}[{bit}]"
            parts.append(f"{{{j - k}{{{'~' if inv else ''}{one}}}}}")
            k = j
            continue
        while j < len(atoms) and atoms[j][0] == kind and atoms[j][1] == name and atoms[j][3] == inv and (
                kind == "const" or atoms[j][2] == bit - (j - k)):
            j += 1
        run = atoms[k:j]
        if kind == "const":
            bits = "".join(str(a[2]) for a in run)
            parts.append(f"{len(run)}'d0" if "1" not in bits else f"{len(run)}'b{bits}")
        else:
            full = reg.width if kind == "keep" else widths.get(name, 0)
            lo = run[-1][2]
            sel = "" if full == 1 or (lo == 0 and bit == full - 1) else f"[{bit}]" if bit == lo else f"[{bit}:{lo}]"
            parts.append(f"{'~' if inv else ''}{name}{sel}")
        k = j
    return parts[0] if len(parts) == 1 else "{" + ", ".join(parts) + "}"


def fresh(text: str, base: str) -> str:
    name, n = f"{base}_ff", 1
    while re.search(rf"\b{re.escape(name)}\b", text):
        n += 1
        name = f"{base}_ff{n}"
    return name


def register_site(mod: Syntax, text: str, reg: BitRegister, facts: dict[int, tuple[int, str, int, bool]],
                  widths: dict[str, int]) -> tuple[list[Edit], str] | None:
    """The edits turning ``reg`` into a wire of its proven bits, and the assign to append before
    ``endmodule`` (None: nothing proven about it, or its text cannot be edited exactly)."""
    if not facts:
        return None
    kept = fresh(text, reg.name)
    value = concat(reg, kept, facts, widths)
    gone = len(facts) == reg.width and reg.whole  # no flop left: its updates are dropped
    edits: list[Edit] = []
    sign = "signed " if reg.signed else ""
    rng = f"[{reg.width - 1}:0] " if reg.width > 1 else ""
    decl = _declaration(reg.declarator)
    if decl is None:
        return None
    name_tok = reg.declarator.name.range
    if reg.port:
        kw = decl.header.dataType.keyword.range
        edits.append(Edit(kw.start.offset, kw.end.offset, "wire"))
        if not gone:
            semi = mod.header.semi.range.end.offset
            edits.append(Edit(semi, semi, f"\n  reg {sign}{rng}{kept};"))
    elif gone and len(list(decl.declarators)) == 1:
        s, e = line_span(text, decl.sourceRange.start.offset, decl.sourceRange.end.offset)
        edits.append(Edit(s, e, f"  wire {sign}{rng}{reg.name};\n"))
    else:
        edits.append(Edit(name_tok.start.offset, name_tok.end.offset, kept))
        end = decl.sourceRange.end.offset
        edits.append(Edit(end, end, f"\n  wire {sign}{rng}{reg.name};"))
    for t in reg.targets:
        if gone:
            stmt = t.parent.parent
            up = stmt.parent
            if up is not None and up.kind == K.ConditionalStatement and up.elseClause is None \
                    and up.parent is not None and up.parent.kind == K.SequentialBlockStatement:
                stmt = up  # an ``if`` that held only this load goes with it
            s, e = stmt.sourceRange.start.offset, stmt.sourceRange.end.offset
            if stmt.parent is not None and stmt.parent.kind == K.SequentialBlockStatement:
                s, e = line_span(text, s, e)
                edits.append(Edit(s, e, ""))
            else:
                edits.append(Edit(s, e, "begin end"))
        else:
            r = t.identifier.range
            edits.append(Edit(r.start.offset, r.end.offset, kept))
    return edits, f"  assign {reg.name} = {value};\n"


def combine(mod: Syntax, text: str, parts: list[tuple[list[Edit], str]]) -> list[Edit]:
    """The edits of several registers in one, their assigns before ``endmodule``."""
    edits = [e for p in parts for e in p[0]]
    end = mod.endmodule.range.start.offset
    start = end
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    edits.append(Edit(start, end, "".join(p[1] for p in parts) + text[start:end]))
    return edits


class BitInvariant(DesignFilesMove):
    """Register bits proven constant or equal to other registers' bits become a continuous assign."""

    name = "bit_invariant"
    requires = "fixed-parameters"

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        design = ctx.design
        if design is None or not design.interface.sequential or design.interface.reset is None:
            return []
        out: list[list[Edit]] = []
        for mod in modules_named(tree, design.top):
            widths = Widths(tree).get()
            regs = bit_registers(mod, text, widths)
            facts = bit_facts(self.proven(text, ctx, regs))
            parts = [p for r in regs.values() if (p := register_site(mod, text, r, facts.get(r.name, {}), widths))]
            out += [combine(mod, text, [p]) for p in parts]
            if len(parts) > 1:
                out.append(combine(mod, text, parts))
        return out

    def proven(self, text: str, ctx: MoveContext, regs: dict[str, BitRegister]) -> tuple[Claim, ...]:
        """The bit claims proven on this design (remembered per text)."""
        if not regs or ctx.design is None:
            return ()
        eq = ctx.design.verification.equivalence
        files = {**self._others, "hh_top.v": text}
        chosen: list[tuple[str, int]] = []
        for r in regs.values():  # in declaration order, as many as the observation takes
            if sum(w for _, w in chosen) + r.width <= MAX_BITS:
                chosen.append((r.name, r.width))
        job = BitJob(files, ctx.design.top, ctx.design.interface, tuple(chosen), eq.reset_cycles,
                     dict(eq.reset_inputs), CPU_S)
        key = hashlib.sha256(repr((sorted(files.items()), job.top, job.iface, job.registers, job.reset_cycles,
                                   sorted(job.reset_inputs.items()))).encode()).hexdigest()
        if key not in _cache:
            if len(_cache) >= CACHE:
                del _cache[next(iter(_cache))]
            _cache[key] = find_bits(job, ctx.design.limits)
        return _cache[key]
