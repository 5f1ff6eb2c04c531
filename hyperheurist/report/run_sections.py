"""The search sections of a run's page (Phase 1, annealing, PPA space, moves); each returns trusted markup."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from html import escape

from ..jsonio import num, text
from ..record.entries import StepRecord
from ..record.summary import Phase1Stats
from ..search.selection import BEST_REWARD, VALID_REWARD
from . import charts, move_charts, scatter
from .chain import describe
from .fmt import fcost, fnum, pct, seconds
from .page import not_recorded, section, table
from .rundata import RunData
from .svg import colour

MAX_ROWS = 50


def merged(rd: RunData, which: str) -> dict[str, object]:
    """The summary's initial/best point overlaid on the full PPA record in ``<which>/ppa.json``."""
    full = rd.initial_ppa if which == "initial" else rd.best_ppa
    point = rd.summary.initial if which == "initial" else rd.summary.best
    return {**full, **{k: v for k, v in (point.to_json() if point else {}).items() if v is not None}}


def _funnel_stages(p1: Phase1Stats) -> list[tuple[str, float, str]]:
    stages = [("generated", float(p1.candidates), colour(4))]
    stages += [(f"rejected at {g}", float(n), charts.INVALID)
               for g, n in sorted(p1.rejected_by_gate.items(), key=lambda gn: -gn[1])]
    return stages + [("repaired", float(p1.repaired), colour(1)), ("valid", float(p1.valid), charts.ACCEPTED)]


def proof_pill(verdict: str | None) -> str:
    """The equivalence verdict as a pill; anything short of a proof is marked."""
    kind = verdict or "not checked"
    cls = "valid" if kind == "proven" else "invalid" if kind == "refuted" else "unproven"
    mark = "" if kind == "proven" else " ⚠"
    return f'<span class="pill {cls}" title="equivalence check">{escape(kind)}{mark}</span>'


EVIDENCE_NOTE = ('<p class="muted">Evidence vs reference: the weakest link of the chain of checks back to a Phase-1 '
                 "design checked against the reference (proven; bounded: no difference within the searched depth; "
                 "simulated only: no formal check covers some link).</p>")


def evidence_pill(evidence: str | None) -> str:
    """What a design's function rests on, against the reference; anything short of a proof is marked."""
    kind = evidence or "not recorded"
    cls = "valid" if kind == "proven" else "unproven"
    mark = "" if kind == "proven" else " ⚠"
    return f'<span class="pill {cls}" title="evidence against the reference">{escape(kind)}{mark}</span>'


def phase1(rd: RunData) -> str:
    p1 = rd.phase1_stats
    if not rd.has_summary and not p1.entries:
        return section("Phase 1: correctness gates", not_recorded("Phase 1 results"), anchor="phase1")
    parts = [charts.funnel(_funnel_stages(p1))]
    if p1.entries:
        rows = []
        for e in p1.entries:
            verdict = e.verdict or "?"
            origin = (f' <span class="muted">(repair of {escape(e.repaired_from[:12])})</span>'
                      if e.repaired_from else "")
            rows.append([escape(e.label or "—") + origin, f"<code>{escape(e.digest[:12])}</code>",
                         f'<span class="pill {escape(verdict)}">{escape(verdict)}</span>',
                         proof_pill(e.proof) if e.verdict == "valid" else "—",
                         escape(e.gate or "—"), f"<code>{escape(e.message)}</code>"])
        parts.append("<h3>Candidates and the first error of each rejected one</h3>" +
                     table(["candidate", "digest", "verdict", "equivalence", "gate", "message"], rows, raw=True))
    else:
        parts.append(not_recorded("Per-candidate verdicts"))
    return section("Phase 1: correctness gates", *parts, anchor="phase1")


def proofs(rd: RunData) -> str:
    """Phase 2's accepted RTL changes with the verdict of each one's equivalence check against its parent."""
    ps = rd.summary.proofs
    if ps is None:
        return section("Equivalence of accepted RTL changes", not_recorded("Equivalence verdicts (summary.json)"),
                       anchor="proofs")
    if not ps.accepted:
        return section("Equivalence of accepted RTL changes",
                       '<p class="na">No RTL change was accepted in Phase 2 (recipe changes keep the RTL).</p>',
                       anchor="proofs")
    counts = ps.by_verdict
    proven = pct(100 * (ps.proven_rate or 0.0), signed=False)
    head = (f"<p>{fnum(len(ps.accepted))} accepted RTL change(s); proven {proven}; "
            f"median proof time {seconds(ps.median_proof_s, missing='—')}. "
            + ", ".join(f"{k}: {n}" for k, n in counts.items() if n) + ". Anything not proven is marked ⚠.</p>")
    rows = [[f"<code>{escape(a.key)}</code>", f"<code>{escape(a.parent)}</code>", escape(a.move or "—"),
             proof_pill(a.verdict), evidence_pill(a.evidence), seconds(a.proof_s, missing="—"),
             escape(a.engine or "—")]
            for a in ps.accepted[:MAX_ROWS]]
    more = f'<p class="muted">First {MAX_ROWS} of {len(ps.accepted)} shown.</p>' if len(ps.accepted) > MAX_ROWS else ""
    return section("Equivalence of accepted RTL changes", head,
                   table(["design", "parent", "move", "verdict vs parent", "evidence vs reference", "proof time",
                          "engine"], rows, raw=True) + more + EVIDENCE_NOTE,
                   anchor="proofs")


def _chain_rows(chains: dict[int, list[StepRecord]]) -> list[list[str]]:
    rows = []
    for c, steps in chains.items():
        kinds = Counter(charts.step_kind(s) for s in steps)
        first, last = steps[0], steps[-1]
        rows.append([str(c), str(len(steps)), str(kinds["accepted"]), str(kinds["rejected"]), str(kinds["invalid"]),
                     str(sum(1 for s in steps if s.reheated)), fnum(first.temperature),
                     fnum(last.temperature), fcost(last.best_cost)])
    return rows


def annealing(rd: RunData) -> str:
    chains = charts.by_chain(rd.steps)
    if not chains:
        return section("Phase 2: annealing", not_recorded("Annealing steps (journal.jsonl)"), anchor="anneal")
    figs = [charts.cost_trace(c, steps) for c, steps in chains.items()]
    figs += [f for f in (charts.temperature_trace(chains), charts.acceptance_trace(chains)) if f]
    parts = [f'<div class="charts">{"".join(figs)}</div>',
             table(["chain", "steps", "accepted", "rejected", "invalid", "reheats", "T start", "T end", "best cost"],
                   _chain_rows(chains), numeric=[True] * 9)]
    rej = rd.summary.phase2_rejected_by_gate
    if rej:
        parts.append("<h3>Invalid proposals by gate</h3>" +
                     table(["gate", "proposals"], [[str(k), fnum(v)] for k, v in sorted(rej.items())], [False, True]))
    invalid = [e for e in rd.evals if not e.valid]
    if invalid:
        rows2 = [[f'<code>{escape(e.key)}</code>', escape(text(e.failed_gate)),
                  f'<code>{escape(e.message)}</code>'] for e in invalid[:MAX_ROWS]]
        more = f'<p class="muted">First {MAX_ROWS} of {len(invalid)} shown.</p>' if len(invalid) > MAX_ROWS else ""
        parts.append(f"<details><summary>{len(invalid)} invalid proposal(s) and their messages</summary>" +
                     table(["state", "gate", "message"], rows2, raw=True) + more + "</details>")
    return section("Phase 2: annealing", *parts, anchor="anneal")


def _pareto_table(pareto: Sequence[Mapping[str, object]], ini: Mapping[str, object], best: Mapping[str, object],
                  rd: RunData | None = None) -> str:
    rows = []
    def by_cost(p: Mapping[str, object]) -> float:
        c = num(p.get("cost"))
        return c if c is not None else float("inf")

    for p in sorted(pareto, key=by_cost):
        key = text(p.get("key")) or text(p.get("digest"))[:12]
        tags = [t for t, d in (("initial", ini), ("best", best)) if key and key == text(d.get("key"))]
        origin = text(p.get("label")) or text(p.get("move")) or "—"
        if rd is not None and key:  # the moves that made it, from its Phase-1 start (the key in the tooltip)
            origin = describe(rd, key)
        rows.append([f'<span title="{escape(key)}">{escape(origin)}</span>'
                     + "".join(f' <span class="pill valid">{t}</span>' for t in tags),
                     fnum(p.get("area_um2")), fnum(p.get("delay_ns")), fnum(p.get("power_mw")),
                     fcost(p.get("cost"))])
    return (f"<h3>Pareto set ({len(pareto)} designs, non-dominated in area, delay and power)</h3>" +
            table(["design (start → moves)", "area (µm²)", "delay (ns)", "power (mW)", "cost"], rows,
                  [False, True, True, True, True], raw=True))


def ppa_space(rd: RunData) -> str:
    pareto = [p.to_json() for p in rd.summary.pareto]
    ini, best = merged(rd, "initial"), merged(rd, "best")
    figs = [f for a, b in scatter.PAIRS if (f := scatter.ppa_scatter(rd.evals, pareto, ini, best, a, b))]
    if not figs:
        return section("PPA space", not_recorded("PPA points"), anchor="ppa-space")
    parts = [f'<div class="charts">{"".join(figs)}</div>']
    parts.append(_pareto_table(pareto, ini, best, rd) if pareto else not_recorded("Pareto set"))
    return section("PPA space: area, delay, power", *parts, anchor="ppa-space")


def moves(rd: RunData) -> str:
    mv = rd.summary.moves
    parts = []
    if mv:
        rows = []
        ran = [n for n in mv if num(mv[n].get("proposals"))]  # a move never proposed has nothing to show
        idle = sorted(n for n in mv if n not in ran)
        for name in sorted(ran, key=lambda n: (-(num(mv[n].get("proposals")) or 0), n)):
            m = mv[name]
            props, acc = num(m.get("proposals")), num(m.get("accepted"))
            rate = pct(100 * acc / props, signed=False) if props and acc is not None else "—"
            rows.append([name, fnum(m.get("proposals")), fnum(m.get("valid")), fnum(m.get("invalid"), missing="—"),
                         fnum(m.get("accepted")), rate, fnum(m.get("improvements")),
                         fnum(m.get("not_applicable"), missing="—"), fnum(m.get("credit")),
                         fnum(m.get("weight"), 3, missing="—")])
        parts.append(table(["move", "proposals", "valid", "invalid", "accepted", "acceptance", "improved best",
                            "not applicable", "credit", "final weight"], rows, [False] + [True] * 9))
        if idle:
            names = [n + (f" (not applicable ×{fnum(na)})" if (na := num(mv[n].get("not_applicable"))) else "")
                     for n in idle]
            parts.append(f'<p class="muted">Moves with no proposal in this run ({len(idle)}): '
                         f'{escape(", ".join(names))}.</p>')
    else:
        parts.append(not_recorded("Per-move statistics"))
    eval_cost = {e.key: float(e.cost) for e in rd.evals if e.cost is not None}
    figs = [f for f in (move_charts.move_bars(mv), move_charts.move_credit(rd.steps, eval_cost)) if f]
    if figs:
        parts.append(f'<div class="charts">{"".join(figs)}</div>')
    parts.append(f'<p class="muted">Credit per evaluated proposal: {VALID_REWARD} when valid, plus its relative cost '
                 f"gain over its parent (up to 1), plus {BEST_REWARD} when it improves its chain's best; the selector "
                 "picks moves in "
                 "proportion to a moving average of it, scaled down for moves whose proposals fail a gate. "
                 "Not applicable = the move had nothing to change in the "
                 "current design.</p>")
    return section("Moves (low-level heuristics)", *parts, anchor="moves")
