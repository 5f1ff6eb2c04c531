"""Per-move charts: proposals/valid/accepted bars and the selector's credit accumulated over iterations."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from html import escape

from ..jsonio import as_dict, num
from ..record.entries import StepRecord
from ..search.selection import reward
from .charts import WIDE, by_chain
from .fmt import fnum
from .svg import Plot, colour, span

BAR_KEYS = (("proposals", "#9db7d5"), ("valid", "#009E73"), ("accepted", "#0072B2"))


def step_credit(step: StepRecord, parent_cost: float | None) -> float:
    """The credit the selector gave this step's move (``search.selection.reward``), rebuilt from the journal.

    The parent's cost is ``cost - delta`` when the step records ``delta``, else ``parent_cost``.
    """
    if "credit" in step.model_fields_set:  # recorded by the annealer (journals since the credit rule changed)
        return float(step.credit)
    cost, delta = num(step.cost), num(step.delta)
    if cost is None:
        return 0.0
    parent = cost - delta if delta is not None else parent_cost
    if parent is None:
        return 0.0
    return reward(True, parent, cost, step.improved)


def move_credit(steps: list[StepRecord], eval_cost: dict[str, float], width: int = WIDE) -> str | None:
    """Cumulative credit per move over the iterations (all chains summed)."""
    gains: dict[str, dict[float, float]] = defaultdict(lambda: defaultdict(float))
    for steps_c in by_chain(steps).values():
        for s in steps_c:
            gains[s.move or "?"][float(s.iteration)] += step_credit(s, eval_cost.get(s.parent))
    if not gains:
        return None
    xs = sorted({x for g in gains.values() for x in g})
    series: dict[str, list[float]] = {}
    for move in sorted(gains, key=lambda m: -sum(gains[m].values())):
        total, ys = 0.0, []
        for x in xs:
            total += gains[move].get(x, 0.0)
            ys.append(total)
        series[move] = ys
    p = Plot("Credit over time (cumulative, all chains)", span(xs, 0.02),
             span([y for ys in series.values() for y in ys], include_zero=True), "iteration", "credit", width=width)
    for i, (move, ys) in enumerate(series.items()):
        dash = None if i < 6 else "6 3"
        p.line(xs, ys, colour(i), 1.8, dash=dash, step=True)
        p.add_legend(f"{move} ({fnum(ys[-1], 3)})", colour(i), "line" if dash is None else "dash")
    return p.render()


def move_bars(moves: Mapping[str, object], width: int = WIDE) -> str | None:
    """Horizontal grouped bars per move: proposals, valid, accepted (moves never proposed are left out)."""
    names = sorted((n for n in moves if (num(as_dict(moves[n]).get("proposals")) or 0) > 0),
                   key=lambda n: (-(num(as_dict(moves[n]).get("proposals")) or 0), n))
    if not names:
        return None
    n = len(names)
    vals = [[num(as_dict(moves[m]).get(k)) or 0.0 for k, _ in BAR_KEYS] for m in names]
    hi = max(v for row in vals for v in row)
    p = Plot("Proposals, valid and accepted per move", span([0.0, hi], 0.08, include_zero=True), (-0.5, n - 0.5),
             "count", "", width=width, height=max(300, 60 + 28 * n), left=170, bottom=42, y_ticks=[])
    for i, (m, row) in enumerate(zip(names, vals, strict=True)):
        y = n - 1 - i
        for j, (v, (k, c)) in enumerate(zip(row, BAR_KEYS, strict=True)):
            yc = y + (1 - j) * 0.26
            x0, x1 = p.sx(0.0), p.sx(v)
            p.marks.append(f'<rect x="{x0:.1f}" y="{p.sy(yc + 0.12):.1f}" width="{max(0.5, x1 - x0):.1f}" '
                           f'height="{p.sy(yc - 0.12) - p.sy(yc + 0.12):.1f}" fill="{c}">'
                           f"<title>{escape(f'{m}: {fnum(v)} {k}')}</title></rect>")
        label = m if len(m) <= 24 else m[:23] + "…"
        p.marks.append(f'<text x="{p.left - 8}" y="{p.sy(y):.1f}" class="lbl" text-anchor="end" '
                       f'dominant-baseline="middle">{escape(label)}</text>')
    for k, c in BAR_KEYS:
        p.add_legend(k, c, "square")
    return p.render()
