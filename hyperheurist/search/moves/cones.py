"""The combinational functions of a module that the semantic moves rewrite, and how to write them back.

A ``Cone`` is a set of targets computed together, each with its value as an exact-width term over
module-level names: a lifted assignment (``egraph.lift``, seen through the wires only lifted
assignments read, ``egraph.share``), or every variable a combinational block of several statements
assigns that is read outside it or is a port (``combblock``). New terms for all of a cone's targets
are written in place of its statements by the e-graph's lowering (``egraph.lower``): a lifted
assignment by ``replace_assignments``, a block by one ``always @*`` per target, the block's other
variables left undriven and unread (synthesis drops them).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

from ...egraph import share
from ...egraph.ir import Term, subterms
from ...egraph.lift import LiftedModule, lift_text
from ...egraph.lower import IDENTIFIER, lower
from . import clockblock
from .clockblock import ClockedBlock
from .combblock import Block, blocks
from .egraph import edits as lifted_edits
from .expr import Syntax
from .verilog import Edit

CACHE = 64  # files whose sites a move keeps
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


@dataclass(frozen=True)
class Cone:
    """Targets computed together (by ``Lifted.key`` for a lifted assignment, by name for a block's)."""

    terms: dict[str, Term]
    module: LiftedModule
    block: Block | None = None

    @property
    def loops(self) -> int:
        return self.block.loops if self.block is not None else 0


def _mentions(text: str, module: LiftedModule) -> dict[str, list[int]]:
    s, e = module.source
    body = _COMMENT.sub(lambda m: " " * len(m.group()), text[s:e])
    out: dict[str, list[int]] = {}
    for m in IDENTIFIER.finditer(body):
        out.setdefault(m.group(), []).append(s + m.start())
    return out


def needed(text: str, module: LiftedModule, block: Block) -> list[str] | None:
    """The block's targets read outside it or that are ports; None when some target is declared inside
    the module's text after the block starts (its new statement could not be placed there)."""
    mentions = _mentions(text, module)
    if isinstance(block, ClockedBlock):  # every register; no temporary may be read elsewhere
        reads = [p for n in block.blocking for p in mentions.get(n, []) if not block.start <= p < block.end
                 and p != module.declared.get(n)]
        return [] if reads or block.blocking & set(module.ports) else list(block.outputs)
    out = []
    for name in block.outputs:
        outside = [p for p in mentions.get(name, []) if not block.start <= p < block.end
                   and p != module.declared.get(name)]
        if name in module.ports or outside:
            out.append(name)
    return out


def cones(text: str, tree: Syntax | None = None, clocked: bool = False) -> Iterator[Cone]:
    """Every lifted assignment of every module alone, then every multi-statement combinational block (and
    with ``clocked`` every single-edge clocked block: its registers' next values, ``clockblock``)."""
    lifted = lift_text(text, tree)
    found = clockblock.blocks(text, tree) if clocked else blocks(text, tree)
    for m in lifted:
        for key, t in share.roots(text, m).items():
            yield Cone({key: t}, m)
        starts = {a.start for a in m.assigns}
        for b in found.get(m.name, []):
            if b.start in starts:
                continue  # a block of one assignment: lifted above
            names = needed(text, m, b)
            if names:
                yield Cone({n: b.outputs[n] for n in names}, m, b)


def rewrite(text: str, cone: Cone, terms: Mapping[str, Term]) -> list[Edit]:
    """The edits putting ``terms`` in place of the cone's targets' statements ([] when they cannot be
    placed: a name read that is declared after the block)."""
    if cone.block is None:
        return lifted_edits(text, cone.module, terms)
    b, m = cone.block, cone.module
    if set(terms) != set(cone.terms):
        return []
    names = {x.name for t in terms.values() for x in subterms(t) if x.op == "var"}
    if any(m.declared.get(n, b.start) >= b.start for n in names | set(terms)):
        return []
    line = text.rfind("\n", 0, b.start) + 1
    indent = text[line:b.start] if not text[line:b.start].strip() else "  "
    taken = set(IDENTIFIER.findall(text))
    out = lower(terms, taken, {**m.ranges, **b.ranges}, procedural=set(terms), indent=indent)
    if isinstance(b, ClockedBlock):  # each register's next value, clocked as the block was
        out = re.sub(r"^(\s*)always @\* ([A-Za-z_][\w$]*) = ", lambda g: f"{g[1]}always {b.event} {g[2]} <= ", out,
                     flags=re.M)
    return [Edit(b.start, b.end, out[len(indent):])]


def cone_sites(text: str, tree: Syntax | None, cache: dict[str, list[list[Edit]]],
               forms: Callable[[Cone, str], Iterable[Mapping[str, Term]]], clocked: bool = False) -> list[list[Edit]]:
    """Every rewrite of a cone of ``text`` into one of the term sets ``forms(cone, seed)`` offers (those
    changing some target), each site once; kept in ``cache`` by the text's hash (also the seed)."""
    key = hashlib.sha256(text.encode()).hexdigest()
    if key not in cache:
        if len(cache) >= CACHE:
            del cache[next(iter(cache))]
        out: list[list[Edit]] = []
        for c in cones(text, tree, clocked):
            for new in forms(c, key):
                if any(new[k] != t for k, t in c.terms.items()):
                    e = rewrite(text, c, new)
                    if e and e not in out:
                        out.append(e)
        cache[key] = out
    return [list(site) for site in cache[key]]
