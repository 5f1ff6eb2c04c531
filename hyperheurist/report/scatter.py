"""The (area, delay, power) space: three 2-D projections with every evaluation, the Pareto set, initial and best."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..jsonio import as_dict, num
from ..record.entries import EvalRecord
from .fmt import fnum
from .svg import GREY, Plot, colour, span

AXES = {"area_um2": "area (µm²)", "delay_ns": "delay (ns)", "power_mw": "power (mW)"}
PAIRS = (("area_um2", "delay_ns"), ("area_um2", "power_mw"), ("delay_ns", "power_mw"))
INITIAL, BEST, FRONT = "#D55E00", "#F2C200", colour(0)
DETAILED = 400  # up to this many evaluations, each point is its own element with a tooltip


def front_2d(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The non-dominated subset (minimise both), sorted by x: drawn as a staircase."""
    out: list[tuple[float, float]] = []
    for x, y in sorted(points):
        if not out or y < out[-1][1]:
            out.append((x, y))
    return out


def _xy(d: Mapping[str, object], a: str, b: str) -> tuple[float, float] | None:
    x, y = num(d.get(a)), num(d.get(b))
    return None if x is None or y is None else (x, y)


def ppa_scatter(evals: list[EvalRecord], pareto: Sequence[Mapping[str, object]], initial: Mapping[str, object],
                best: Mapping[str, object], a: str, b: str, width: int = 362) -> str | None:
    """One projection; the staircase joins the Pareto designs that are non-dominated in these two axes."""
    cloud = [xy for e in evals if e.valid and (xy := _xy(as_dict(e.metrics), a, b))]
    front = [xy for pt in pareto if (xy := _xy(as_dict(pt), a, b))]
    ini, bst = _xy(initial, a, b), _xy(best, a, b)
    everything = cloud + front + [p for p in (ini, bst) if p]
    if not everything:
        return None
    name_a, name_b = AXES[a].split(" ")[0], AXES[b].split(" ")[0]
    p = Plot(f"{name_b} vs {name_a}", span([x for x, _ in everything]), span([y for _, y in everything]),
             AXES[a], AXES[b], width=width, height=300, left=58)
    if len(cloud) > DETAILED:  # long runs: one compact path, no tooltips
        p.dots([x for x, _ in cloud], [y for _, y in cloud], GREY, r=2.2)
    else:
        for x, y in cloud:
            p.point(x, y, GREY, r=2.4, tip=f"{AXES[a]} {fnum(x)}, {AXES[b]} {fnum(y)}")
    stair = front_2d(front)
    if len(stair) > 1:
        p.line([x for x, _ in stair], [y for _, y in stair], FRONT, 1.2, step=True)
    for x, y in front:
        p.point(x, y, FRONT, r=3.4, tip=f"Pareto: {AXES[a]} {fnum(x)}, {AXES[b]} {fnum(y)}")
    if ini:
        p.point(*ini, INITIAL, shape="square", r=5.0, tip=f"initial: {fnum(ini[0])}, {fnum(ini[1])}", stroke="#000")
    if bst:
        p.point(*bst, BEST, shape="star", r=5.0, tip=f"best: {fnum(bst[0])}, {fnum(bst[1])}", stroke="#000")
    p.add_legend("evaluated", GREY, "circle")
    p.add_legend("Pareto set", FRONT, "circle")
    p.add_legend("initial", INITIAL, "square")
    p.add_legend("best" + (" (= initial)" if ini and ini == bst else ""), BEST, "star")
    return p.render()
