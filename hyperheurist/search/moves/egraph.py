"""egraph_rewrite: a module's datapath assignments optimised together by the e-graph engine.

Every assignment of a module that ``egraph.lift`` can state exactly (a register's next value too) is
lifted to a term, seen through the wires only lifted assignments read (``egraph.share``); the engine
saturates them with its rules and extracts the cheapest DAG under the synthesis-calibrated area
model. When that is cheaper by ``MARGIN``, the site replaces every changed assignment by the lowered
terms (shared subterms become one wire); when several changed, each one alone is offered as well
(when it is cheaper alone), so the annealer has more than one option. Bounded: modules with more
than ``MAX_ASSIGNS`` liftable assignments are skipped, the engine runs within its iteration, node
and trial limits (deterministic: no wall-clock limit), and results are remembered per source
text (the annealer asks again for every state). The evaluation stage proves every RTL change
against its parent: nothing is proven here.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping

from ...egraph import share
from ...egraph.cost import area_cost
from ...egraph.engine import dag_cost, optimise
from ...egraph.ir import Term, subterms
from ...egraph.lift import LiftedModule, lift_text
from ...egraph.lower import replace_assignments
from ..state import MoveContext
from .expr import Syntax
from .rtl import RtlMove, line_span
from .verilog import Edit

MAX_ASSIGNS = 64  # liftable assignments per module; a larger module is not optimised as one e-graph
MARGIN = 0.02  # relative area gain below which a rewrite is not worth an evaluation
ITERATIONS = 8
NODE_LIMIT = 20_000
TRIALS = 20_000  # extraction's bound; work bounds, not wall time, so a run does not depend on load
CACHE = 64  # source texts remembered

_cache: dict[str, list[list[Edit]]] = {}


def module_sites(text: str, module: LiftedModule) -> list[list[Edit]]:
    """The rewrites of one module's lifted assignments the engine finds cheaper (all changed ones
    together first, then each changed one alone)."""
    roots = dict(share.roots(text, module))
    if not roots or len(roots) > MAX_ASSIGNS:
        return []
    res = optimise(roots, area_cost, iterations=ITERATIONS, node_limit=NODE_LIMIT, trials=TRIALS)
    bound = res.cost_before * (1 - MARGIN)
    if not res.cost_after < bound:
        return []
    changed = {n: t for n, t in res.terms.items() if roots.get(n) != t}
    out = [edits(text, module, reusing(changed, roots))]
    if len(changed) > 1:
        out += [edits(text, module, reusing({n: t}, roots)) for n, t in changed.items()
                if dag_cost({**roots, n: t}, area_cost) < bound]
    return out


def reusing(terms: Mapping[str, Term], roots: Mapping[str, Term]) -> dict[str, Term]:
    """``terms`` and the unchanged roots whose whole value they read (``a*b - a`` beside ``p = a*b``):
    lowered together, the shared node is one wire that both assignments read, not a second copy of it."""
    inner = {x for t in terms.values() for x in subterms(t)}
    return {**terms, **{n: t for n, t in roots.items() if n not in terms and t.args and t in inner}}


def edits(text: str, module: LiftedModule, terms: Mapping[str, Term]) -> list[Edit]:
    """The splices that put ``terms`` in place, removed statements taking their whole line."""
    out = []
    for s in replace_assignments(text, module, terms):
        start, end = line_span(text, s.start, s.end) if not s.text else (s.start, s.end)
        out.append(Edit(start, end, s.text))
    return out


def rewrites(text: str, tree: Syntax | None = None) -> list[list[Edit]]:
    """Every site of every module of ``text`` (remembered per text)."""
    key = hashlib.sha256(text.encode()).hexdigest()
    if key not in _cache:
        if len(_cache) >= CACHE:
            del _cache[next(iter(_cache))]
        _cache[key] = [site for m in lift_text(text, tree) for site in module_sites(text, m)]
    return [list(site) for site in _cache[key]]


class EgraphRewrite(RtlMove):
    """Datapath assignments rewritten by the e-graph engine (lift, saturate, extract, lower)."""

    name = "egraph_rewrite"
    requires = "fixed-parameters"  # signed arithmetic is lifted exactly; parameters are frozen at their values

    def sites(self, text: str, tree: Syntax, ctx: MoveContext, rng: random.Random) -> list[list[Edit]]:
        return rewrites(text, tree)
