"""A small inline-SVG plotting canvas: linear axes, grid, ticks, lines, markers, bars, legend.

No JavaScript and no external references; every text node is escaped. Output is deterministic
(fixed number formatting), so two renders of the same run are byte-identical.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from html import escape

# Okabe-Ito (yellow dropped: unreadable as a thin line on white), then Tol's muted colours for more series
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#332288", "#882255", "#44AA99",
           "#999933", "#000000")
GREY = "#9aa0a6"


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _f(v: float) -> str:
    return f"{v:.1f}"


def span(values: Iterable[float | None], pad: float = 0.06, include_zero: bool = False) -> tuple[float, float]:
    """A padded [lo, hi] around the finite values; a degenerate range is widened around its value."""
    vs = [v for v in values if v is not None and math.isfinite(v)]
    if include_zero:
        vs.append(0.0)
    if not vs:
        return 0.0, 1.0
    lo, hi = min(vs), max(vs)
    if hi - lo < 1e-12 * max(1.0, abs(hi)):
        d = abs(hi) * 0.05 or 0.5
        return lo - d, hi + d
    d = (hi - lo) * pad
    lo2, hi2 = lo - d, hi + d
    if include_zero and lo >= 0:
        lo2 = 0.0
    return lo2, hi2


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About ``n`` round tick values inside [lo, hi] (steps of 1, 2, 5 x 10^k)."""
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / max(1, n)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    ticks = []
    t = first
    while t <= hi + step * 1e-9:
        ticks.append(0.0 if abs(t) < step * 1e-9 else t)
        t += step
    return ticks


def tick_label(v: float) -> str:
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e5 or a < 1e-3:
        return f"{v:.2g}"
    return f"{v:.6g}" if a >= 1 else f"{v:.4g}"


def _compress(pts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Drop repeated points and the inner points of horizontal or vertical runs (same pixels drawn)."""
    out: list[tuple[str, str]] = []
    for pt in pts:
        if out and pt == out[-1]:
            continue
        if len(out) >= 2 and ((out[-2][1] == out[-1][1] == pt[1]) or (out[-2][0] == out[-1][0] == pt[0])):
            out[-1] = pt
        else:
            out.append(pt)
    return out


@dataclass
class Plot:
    """One chart. Add marks in data coordinates, then ``render()`` to an ``<svg>`` string."""

    title: str
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    x_label: str = ""
    y_label: str = ""
    width: int = 560
    height: int = 300
    left: int = 64
    right: int = 16
    top: int = 30
    bottom: int = 46
    x_ticks: Sequence[tuple[float, str]] | None = None  # None: automatic; [] : none
    y_ticks: Sequence[tuple[float, str]] | None = None
    marks: list[str] = field(default_factory=list)
    legend: list[tuple[str, str, str]] = field(default_factory=list)  # (label, colour, shape)

    def sx(self, x: float) -> float:
        lo, hi = self.x_range
        return self.left + (x - lo) / (hi - lo) * (self.width - self.left - self.right)

    def sy(self, y: float) -> float:
        lo, hi = self.y_range
        return self.height - self.bottom - (y - lo) / (hi - lo) * (self.height - self.top - self.bottom)

    def line(self, xs: Sequence[float], ys: Sequence[float | None], stroke: str, width: float = 1.6,
             dash: str | None = None, step: bool = False) -> None:
        """A polyline; a None y breaks the line."""
        runs: list[list[tuple[float, float]]] = [[]]
        for x, y in zip(xs, ys, strict=True):
            if y is None:
                runs.append([])
                continue
            if step and runs[-1]:
                runs[-1].append((x, runs[-1][-1][1]))
            runs[-1].append((x, y))
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        for run in runs:
            if len(run) < 2:
                continue
            pts = " ".join(f"{a},{b}" for a, b in _compress([(_f(self.sx(x)), _f(self.sy(y))) for x, y in run]))
            self.marks.append(f'<polyline fill="none" stroke="{stroke}" stroke-width="{width}"{extra} points="{pts}"/>')

    def dots(self, xs: Sequence[float], ys: Sequence[float], fill: str, r: float = 2.2) -> None:
        """Many small filled dots as one ``<path>`` (round caps on zero-length segments), one per pixel.

        A fraction of the bytes of one ``<circle>`` each: long runs keep the page small.
        """
        seen: set[tuple[str, str]] = set()
        cmds = []
        for x, y in zip(xs, ys, strict=True):
            key = (f"{self.sx(x):.0f}", f"{self.sy(y):.0f}")
            if key not in seen:
                seen.add(key)
                cmds.append(f"M{key[0]} {key[1]}h0")
        if cmds:
            self.marks.append(f'<path d="{"".join(cmds)}" stroke="{fill}" stroke-width="{2 * r:g}" '
                              'stroke-linecap="round" fill="none"/>')

    def point(self, x: float, y: float, fill: str, *, shape: str = "circle", r: float = 3.2,
              hollow: bool = False, tip: str = "", stroke: str | None = None) -> None:
        cx, cy = _f(self.sx(x)), _f(self.sy(y))
        paint = (f'fill="none" stroke="{fill}" stroke-width="1.3"' if hollow
                 else f'fill="{fill}" stroke="{stroke or "#fff"}" stroke-width="0.8"')
        title = f"<title>{escape(tip)}</title>" if tip else ""
        X, Y = self.sx(x), self.sy(y)
        if shape == "circle":
            el = f'<circle cx="{cx}" cy="{cy}" r="{r}" {paint}>{title}</circle>'
        elif shape == "square":
            el = (f'<rect x="{_f(X - r)}" y="{_f(Y - r)}" width="{_f(2 * r)}" height="{_f(2 * r)}" {paint}>'
                  f"{title}</rect>")
        elif shape == "diamond":
            k = r * 1.3
            pts = f"{_f(X)},{_f(Y - k)} {_f(X + k)},{_f(Y)} {_f(X)},{_f(Y + k)} {_f(X - k)},{_f(Y)}"
            el = f'<polygon points="{pts}" {paint}>{title}</polygon>'
        elif shape == "star":
            pts = " ".join(
                f"{_f(X + (r * 1.6 if k % 2 == 0 else r * 0.7) * math.sin(k * math.pi / 5))},"
                f"{_f(Y - (r * 1.6 if k % 2 == 0 else r * 0.7) * math.cos(k * math.pi / 5))}" for k in range(10))
            el = f'<polygon points="{pts}" {paint}>{title}</polygon>'
        elif shape == "tri":  # an upward triangle: a value above the plotted range
            pts = f"{_f(X)},{_f(Y - r * 1.2)} {_f(X + r)},{_f(Y + r * 0.8)} {_f(X - r)},{_f(Y + r * 0.8)}"
            el = f'<polygon points="{pts}" {paint}>{title}</polygon>'
        else:  # "cross": invalid proposals
            d = r
            el = (f'<path d="M{_f(X - d)},{_f(Y - d)}L{_f(X + d)},{_f(Y + d)}'
                  f'M{_f(X - d)},{_f(Y + d)}L{_f(X + d)},{_f(Y - d)}" '
                  f'stroke="{fill}" stroke-width="1.6" fill="none">{title}</path>')
        self.marks.append(el)

    def bar(self, x: float, y0: float, y1: float, half_width: float, fill: str, tip: str = "") -> None:
        top, bot = max(y0, y1), min(y0, y1)
        X0, X1 = self.sx(x - half_width), self.sx(x + half_width)
        title = f"<title>{escape(tip)}</title>" if tip else ""
        self.marks.append(f'<rect x="{_f(X0)}" y="{_f(self.sy(top))}" width="{_f(X1 - X0)}" '
                          f'height="{_f(max(0.5, self.sy(bot) - self.sy(top)))}" fill="{fill}">{title}</rect>')

    def error_bar(self, x: float, lo: float, hi: float, stroke: str = "#333", cap: float = 0.12) -> None:
        X, Xa, Xb = self.sx(x), self.sx(x - cap), self.sx(x + cap)
        Ylo, Yhi = self.sy(lo), self.sy(hi)
        self.marks.append(f'<path d="M{_f(X)},{_f(Ylo)}L{_f(X)},{_f(Yhi)}M{_f(Xa)},{_f(Ylo)}L{_f(Xb)},{_f(Ylo)}'
                          f'M{_f(Xa)},{_f(Yhi)}L{_f(Xb)},{_f(Yhi)}" stroke="{stroke}" stroke-width="1.4" fill="none"/>')

    def hline(self, y: float, stroke: str = "#555", dash: str = "4 3") -> None:
        lo, hi = self.x_range
        self.line([lo, hi], [y, y], stroke, 1.0, dash)

    def add_legend(self, label: str, fill: str, shape: str = "line") -> None:
        self.legend.append((label, fill, shape))

    def _axes(self) -> list[str]:
        out: list[str] = []
        x0, x1 = self.left, self.width - self.right
        y0, y1 = self.top, self.height - self.bottom
        yt = self.y_ticks if self.y_ticks is not None else [(t, tick_label(t)) for t in nice_ticks(*self.y_range)]
        for t, label in yt:
            Y = _f(self.sy(t))
            out.append(f'<line x1="{x0}" x2="{x1}" y1="{Y}" y2="{Y}" class="grid"/>')
            out.append(f'<text x="{x0 - 6}" y="{Y}" class="tick" text-anchor="end" dominant-baseline="middle">'
                       f'{escape(label)}</text>')
        xt = self.x_ticks if self.x_ticks is not None else [(t, tick_label(t)) for t in nice_ticks(*self.x_range, 6)]
        for t, label in xt:
            X = _f(self.sx(t))
            out.append(f'<line x1="{X}" x2="{X}" y1="{y0}" y2="{y1}" class="grid"/>')
            out.append(f'<text x="{X}" y="{y1 + 15}" class="tick" text-anchor="middle">{escape(label)}</text>')
        out.append(f'<rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" class="frame"/>')
        if self.x_label:
            out.append(f'<text x="{(x0 + x1) / 2:.1f}" y="{self.height - 8}" class="axis" text-anchor="middle">'
                       f'{escape(self.x_label)}</text>')
        if self.y_label:
            cy = (y0 + y1) / 2
            out.append(f'<text x="14" y="{cy:.1f}" class="axis" text-anchor="middle" '
                       f'transform="rotate(-90 14 {cy:.1f})">{escape(self.y_label)}</text>')
        out.append(f'<text x="{x0}" y="18" class="ptitle">{escape(self.title)}</text>')
        return out

    def _legend(self) -> str:
        """An HTML legend under the chart (wraps, unlike SVG text)."""
        items = []
        for label, fill, shape in self.legend:
            items.append(f'<span class="key"><i class="sw {shape}" style="--c:{fill}"></i>{escape(label)}</span>')
        return f'<div class="legend">{"".join(items)}</div>' if items else ""

    def render(self) -> str:
        """``<figure>`` holding the ``<svg>`` and its legend."""
        body = "".join(self._axes() + self.marks)
        svg = (f'<svg class="plot" viewBox="0 0 {self.width} {self.height}" width="{self.width}" '
               f'height="{self.height}" role="img" aria-label="{escape(self.title)}">{body}</svg>')
        return f'<figure class="chart">{svg}{self._legend()}</figure>'
