"""The lineage of a design state: the accepted moves from the Phase-1 start to it, each with its diff, the
equivalence verdict of its RTL and its cost change.

Read from the journal's ``step`` records (``parent`` -> ``proposal``, the move, its cost and ``delta``),
the ``eval`` records (recipes, proof verdicts) and ``candidates/<digest>/src`` (each RTL the run kept).
"""

from __future__ import annotations

from html import escape

import yaml
from pydantic import JsonValue

from ..jsonio import num, text
from ..record.chain import Checked, proof_kind, proofs_by_rtl
from ..record.entries import StepRecord
from .chain import chain, describe, start_label
from .diff import diff_html
from .fmt import MISSING, fcost, pct
from .page import not_recorded, section
from .run_sections import proof_pill
from .rundata import RunData

RecipeJson = dict[str, JsonValue]  # Recipe.to_dict() as an eval record holds it

MAX_LINEAGE = 60


def _src(rd: RunData, digest: str) -> str | None:
    folder = rd.path / "candidates" / digest[:12] / "src"
    try:
        files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in (".v", ".sv", ".vh", ".svh"))
        if not files:
            return None
        if len(files) == 1:
            return files[0].read_text(encoding="utf-8", errors="replace")
        return "".join(f"// ---- {p.relative_to(folder)}\n" + p.read_text(encoding="utf-8", errors="replace")
                       for p in files)
    except OSError:
        return None


def _recipes(rd: RunData) -> dict[str, RecipeJson]:
    return {e.key: e.recipe for e in rd.evals}


def _diff(rd: RunData, st: StepRecord, recipes: dict[str, RecipeJson]) -> str:
    pd, cd = st.parent_digest, text(st.proposal_digest)
    if pd and cd and pd != cd:
        old, new = _src(rd, pd), _src(rd, cd)
        if old is None or new is None:
            return not_recorded(f"the RTL of {pd[:12] if old is None else cd[:12]} (candidates/ folder)")
        return diff_html(old, new, f"{pd[:12]} (before)", f"{cd[:12]} ({text(st.move)})", what="RTL")
    old_r, new_r = recipes.get(st.parent), recipes.get(text(st.proposal))
    if old_r is None or new_r is None:
        return '<p class="muted">Same RTL; the synthesis recipe changed (recipe not recorded).</p>'
    return ('<p class="muted">Same RTL; the synthesis recipe changed:</p>' +
            diff_html(yaml.safe_dump(old_r, sort_keys=True), yaml.safe_dump(new_r, sort_keys=True),
                      "recipe (before)", f"recipe ({text(st.move)})", what="recipe"))


def _head(i: int, st: StepRecord, proofs: dict[str, Checked]) -> str:
    cost, delta = num(st.cost), num(st.delta)
    before = cost - delta if cost is not None and delta is not None else None
    change = 100 * delta / before if delta is not None and before else None
    pd, cd = st.parent_digest, text(st.proposal_digest)
    same_rtl = bool(pd) and pd == cd
    proof = ('<span class="pill valid" title="equivalence check">same RTL</span>' if same_rtl
             else proof_pill(proof_kind(held.proof if (held := proofs.get(cd)) is not None else None)))
    return (f"{i}. <b>{escape(st.move or '?')}</b> · cost {escape(fcost(before))} → "
            f"{escape(fcost(cost))} ({escape(pct(change) if change is not None else MISSING)}) · {proof}")


def lineage_section(rd: RunData) -> str:
    """Each accepted move from the start to the best design, with its diff, proof verdict and cost change."""
    best = rd.summary.best
    if best is None or not best.key:
        return ""
    steps = chain(rd, best.key)
    start = start_label(rd, steps, best.key)
    if not steps:
        body = f"<p>The best design is the start design <b>{escape(start)}</b>: no move improved on it.</p>"
        return section("Lineage of the best design", body, anchor="lineage")
    proofs, recipes = proofs_by_rtl(rd.records), _recipes(rd)
    parts = [f"<p>{len(steps)} move(s) from the Phase-1 design <b>{escape(start)}</b> to the best design "
             f"(<code>{escape(best.key)}</code>): {escape(describe(rd, best.key))}.</p>"]
    ini = rd.summary.initial
    if ini is not None and ini.key and steps and steps[0].parent != ini.key:
        parts.append(f'<p class="bad">The best design descends from <b>{escape(start)}</b>, not from the initial '
                     f"design <b>{escape(ini.label or ini.key)}</b>: the best-vs-initial diff below compares two "
                     "different Phase-1 designs; the moves here are the ones that led to the best.</p>")
    shown = steps[-MAX_LINEAGE:]
    if len(steps) > len(shown):
        parts.append(f'<p class="muted">The first {len(steps) - len(shown)} moves are not shown.</p>')
    first = len(steps) - len(shown) + 1
    for i, st in enumerate(shown, first):
        parts.append(f"<details><summary>{_head(i, st, proofs)}</summary>{_diff(rd, st, recipes)}</details>")
    parts.append('<p class="muted">Cost before → after the move (1 = the initial design); the pill is the '
                 "equivalence verdict of the move's RTL against the reference (a recipe move keeps the RTL).</p>")
    return section("Lineage of the best design", *parts, anchor="lineage")
