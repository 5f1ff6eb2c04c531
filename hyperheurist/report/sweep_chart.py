"""The sweep page's chart: cost improvement per benchmark, mean ± std over seeds, seeds and reference marked."""

from __future__ import annotations

from ..jsonio import as_dict, as_list, num, text
from .fmt import fnum
from .svg import Plot, colour, span


def improvement_chart(rows: list[dict[str, object]], width: int = 1100) -> str | None:
    """Bars of mean improvement (%) with ±std whiskers; ``None`` when no benchmark has a value."""
    names = [text(r.get("benchmark")) for r in rows]
    means = [num(as_dict(r.get("improvement_pct")).get("mean")) for r in rows]
    if all(m is None for m in means):
        return None
    stds = [num(as_dict(r.get("improvement_pct")).get("std")) for r in rows]
    seeds = [[v for run in as_list(r.get("runs")) if (v := num(as_dict(run).get("improvement_pct"))) is not None]
             for r in rows]
    refs = [num(r.get("reference_improvement_pct")) for r in rows]
    singles = [num(as_dict(as_dict(r.get("single_pass")).get("improvement_pct")).get("mean")) for r in rows]
    ys: list[float | None] = [0.0, *singles]
    for m, s, pts, ref in zip(means, stds, seeds, refs, strict=True):
        ys += [m, ref, *pts]
        if m is not None and s is not None:
            ys += [m - s, m + s]
    n = len(rows)
    p = Plot("Cost improvement over the baseline (%)", (-0.6, n - 0.4), span(ys, 0.08), "", "improvement (%)",
             width=max(360, min(width, 110 * n + 120)), height=320, bottom=64,
             x_ticks=[(i, nm if len(nm) <= 14 else nm[:13] + "…") for i, nm in enumerate(names)])
    p.hline(0.0, "#5f6b7a", "")
    for i, (nm, m, s, pts, ref) in enumerate(zip(names, means, stds, seeds, refs, strict=True)):
        if m is not None:
            p.bar(i, 0.0, m, 0.3, colour(0) if m >= 0 else "#b3261e",
                  tip=f"{nm}: {fnum(m, 3)}%" + (f" ± {fnum(s, 2)}" if s is not None else "")
                  + f" over {len(pts)} seed(s)")
            if s is not None:
                p.error_bar(i, m - s, m + s)
        for k, v in enumerate(pts):
            p.point(i + 0.12 * (k - (len(pts) - 1) / 2), v, "#1d2330", r=2.4, tip=f"{nm} seed: {fnum(v, 3)}%")
        if ref is not None:
            p.point(i, ref, colour(5), shape="diamond", r=4.5, stroke="#000", tip=f"{nm} reference: {fnum(ref, 3)}%")
        single = singles[i]
        if single is not None:
            p.point(i + 0.22, single, colour(6), shape="tri", r=4.5, stroke="#000",
                    tip=f"{nm} single-pass: {fnum(single, 3)}%")
    p.add_legend("mean over seeds", colour(0), "square")
    p.add_legend("± 1 std", "#333333", "line")
    p.add_legend("single seed", "#1d2330", "circle")
    if any(r is not None for r in refs):
        p.add_legend("hand-written reference", colour(5), "diamond")
    if any(v is not None for v in singles):
        p.add_legend("single-pass (no search)", colour(6), "tri")
    return p.render()
