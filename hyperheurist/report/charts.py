"""The run page's annealing and Phase-1 charts, built from journal records (inline SVG via ``svg.Plot``).

The PPA scatter lives in ``scatter.py``, the per-move charts in ``move_charts.py``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from html import escape

from ..jsonio import num
from ..record.entries import StepRecord
from ..record.enums import Phase, StepVerdict
from .fmt import fnum
from .svg import GREY, Plot, colour, span

ACCEPTED, REJECTED, INVALID = "#137333", GREY, "#b3261e"
WIDE = 550  # two charts side by side fill the page's content width
DETAILED = 300  # up to this many steps per chain, each proposal is its own element with a tooltip


def step_kind(step: StepRecord) -> str:
    """"accepted" | "rejected" | "invalid" for one annealing step."""
    if step.accepted or step.verdict == StepVerdict.ACCEPTED:
        return "accepted"
    if num(step.cost) is None or step.verdict.startswith("invalid:"):
        return "invalid"
    return "rejected"


def by_chain(steps: Sequence[StepRecord]) -> dict[int, list[StepRecord]]:
    chains: dict[int, list[StepRecord]] = defaultdict(list)
    for s in steps:
        if s.phase == Phase.POLISH:
            continue  # the greedy finish after annealing is no chain's step (``search/polish.py``)
        chains[s.chain if s.chain is not None else 0].append(s)
    for c in chains:
        chains[c].sort(key=lambda s: s.iteration)
    return dict(sorted(chains.items()))


def _iter(s: StepRecord, i: int) -> float:
    return float(s.iteration)


def _cost_range(cur: list[float | None], best: list[float | None], prop: list[float | None]) -> tuple[float, float]:
    """The y range: every current/best cost, proposals only up to a cap so one bad outlier cannot flatten the trace."""
    core = [v for v in cur + best if v is not None]
    if not core:
        return span(prop)
    lo, hi = min(core), max(core)
    cap = hi + max(3 * (hi - lo), 0.03 * abs(hi), 1e-9)
    return span(core + [p for p in prop if p is not None and p <= cap])


def cost_trace(chain: int, steps: list[StepRecord], width: int = WIDE) -> str:
    """Current and best cost per iteration, every proposal marked by its verdict."""
    xs = [_iter(s, i) for i, s in enumerate(steps)]
    cur = [num(s.current_cost) for s in steps]
    best = [num(s.best_cost) for s in steps]
    prop = [num(s.cost) for s in steps]
    lo, hi = _cost_range(cur, best, prop)
    p = Plot(f"Chain {chain}: cost per iteration", span(xs, 0.02), (lo, hi), "iteration", "cost (1 = initial design)",
             width=width)
    p.line(xs, cur, colour(0), 1.8, step=True)
    p.line(xs, best, "#1d2330", 1.2, dash="5 3", step=True)
    off, invalid = _proposals(p, xs, steps, prop, hi)
    p.add_legend("current cost", colour(0))
    p.add_legend("best so far", "#1d2330", "dash")
    p.add_legend("accepted", ACCEPTED, "circle")
    p.add_legend("rejected", REJECTED, "hollow")
    if off:
        p.add_legend(f"above the range ({off})", REJECTED, "tri")
    if invalid:
        p.add_legend(f"invalid, no cost ({invalid})", INVALID, "cross")
    return p.render()


def _proposals(p: Plot, xs: list[float], steps: list[StepRecord], prop: list[float | None],
               hi: float) -> tuple[int, int]:
    """Mark every proposal by verdict; invalid and off-scale ones on the top edge. Returns (off-scale, invalid)."""
    detailed = len(steps) <= DETAILED
    groups: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    off = invalid = 0
    for x, s, c in zip(xs, steps, prop, strict=True):
        kind = step_kind(s)
        tip = f"iteration {fnum(x)}: {s.move} -> {kind}" + (f", cost {fnum(c)}" if c is not None else "")
        tip += " (reheated)" if s.reheated else ""
        tip += " (restarted from another state)" if s.restarted else ""
        col = ACCEPTED if kind == "accepted" else REJECTED
        if kind == "invalid":
            invalid += 1
            mark, y = ("cross", INVALID, False, tip + f" [{s.verdict}]"), hi
        elif c is not None and c > hi:
            off += 1
            mark, y = ("tri", col, False, tip + " (off scale)"), hi
        elif c is not None:
            mark, y = ("circle", col, kind != "accepted", tip), c
        else:
            continue
        if detailed:
            p.point(x, y, mark[1], shape=mark[0], hollow=mark[2], r=3.6 if mark[0] == "tri" else 3.2, tip=mark[3])
        else:
            groups[mark[1]][0].append(x)
            groups[mark[1]][1].append(y)
    for col, (gx, gy) in groups.items():  # long runs: compact dots, no tooltips
        p.dots(gx, gy, col, r=1.6)
    return off, invalid


def temperature_trace(chains: dict[int, list[StepRecord]], width: int = WIDE) -> str | None:
    """Temperature of every chain per iteration, reheats marked."""
    if all(num(s.temperature) is None for steps in chains.values() for s in steps):
        return None
    allx = [_iter(s, i) for steps in chains.values() for i, s in enumerate(steps)]
    allt = [num(s.temperature) for steps in chains.values() for s in steps]
    p = Plot("Temperature", span(allx, 0.02), span(allt, include_zero=True), "iteration", "T", width=width)
    for k, (c, steps) in enumerate(chains.items()):
        xs = [_iter(s, i) for i, s in enumerate(steps)]
        ts = [num(s.temperature) for s in steps]
        p.line(xs, ts, colour(k), 1.6, dash=None if k % 2 == 0 else "6 3")
        for x, s, t in zip(xs, steps, ts, strict=True):
            if s.reheated and t is not None:
                p.point(x, t, colour(k), shape="diamond", r=3.5, stroke="#000", tip=f"chain {c}: reheat at {fnum(x)}")
        p.add_legend(f"chain {c}", colour(k), "line" if k % 2 == 0 else "dash")
    if any(s.reheated for steps in chains.values() for s in steps):
        p.add_legend("reheat", "#5f6b7a", "diamond")
    return p.render()


def acceptance_trace(chains: dict[int, list[StepRecord]], window: int | None = None,
                     width: int = WIDE) -> str | None:
    """Share of accepted proposals over a sliding window (default: 10, or 1/40 of a long chain), per chain."""
    if not any(chains.values()):
        return None
    window = window or max(10, max(len(s) for s in chains.values()) // 40)
    allx = [_iter(s, i) for steps in chains.values() for i, s in enumerate(steps)]
    p = Plot(f"Acceptance rate (last {window} proposals)", span(allx, 0.02), (0.0, 1.05), "iteration",
             "accepted share", width=width, y_ticks=[(v, f"{v:.0%}") for v in (0, 0.25, 0.5, 0.75, 1.0)])
    for k, (c, steps) in enumerate(chains.items()):
        xs, ys = [], []
        for i, s in enumerate(steps):
            win = steps[max(0, i - window + 1):i + 1]
            xs.append(_iter(s, i))
            ys.append(sum(1 for w in win if step_kind(w) == "accepted") / len(win))
        p.line(xs, ys, colour(k), 1.6, dash=None if k % 2 == 0 else "6 3")
        p.add_legend(f"chain {c}", colour(k), "line" if k % 2 == 0 else "dash")
    return p.render()


def funnel(stages: list[tuple[str, float, str]], width: int = WIDE) -> str:
    """Horizontal bars, one per funnel stage: (label, count, colour)."""
    n = len(stages)
    height = 40 + 30 * n + 30
    hi = max([c for _, c, _ in stages] + [1.0])
    step = max(1, int(hi) // 6 or 1)
    p = Plot("Phase 1 funnel", (0.0, hi * 1.12), (-0.5, n - 0.5), "candidates", "", width=width, height=height,
             left=170, bottom=40, top=26, y_ticks=[],
             x_ticks=[(float(t), str(t)) for t in range(0, int(hi) + 1, step)])
    for i, (label, count, col) in enumerate(stages):
        y = n - 1 - i
        x0, x1 = p.sx(0.0), p.sx(count)
        y0 = p.sy(y + 0.32)
        p.marks.append(f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{max(0.5, x1 - x0):.1f}" '
                       f'height="{p.sy(y - 0.32) - y0:.1f}" fill="{col}"/>')
        p.marks.append(f'<text x="{x0 - 8:.1f}" y="{p.sy(y):.1f}" class="lbl" text-anchor="end" '
                       f'dominant-baseline="middle">{escape(label)}</text>')
        p.marks.append(f'<text x="{x1 + 6:.1f}" y="{p.sy(y):.1f}" class="lbl" dominant-baseline="middle">'
                       f'{escape(fnum(count))}</text>')
    return p.render()
