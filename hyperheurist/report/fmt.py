"""Number formatting for pages, tables and the terminal: units, signs, "not recorded"."""

from __future__ import annotations

from typing import Any

from ..jsonio import num

MISSING = "not recorded"

# metric key -> (label, unit for HTML, unit for plain text)
METRICS: dict[str, tuple[str, str, str]] = {
    "cost": ("Cost", "", ""),
    "area_um2": ("Area", "µm²", "um2"),
    "delay_ns": ("Delay", "ns", "ns"),
    "power_mw": ("Power", "mW", "mW"),
}


def fnum(x: Any, digits: int = 4, missing: str = MISSING) -> str:
    """Up to ``digits`` significant figures, integers kept whole."""
    v = num(x)
    if v is None:
        return missing
    if v == 0:
        return "0"
    if abs(v) >= 10 ** digits:
        return f"{v:,.0f}"
    out = f"{v:.{digits}g}"
    return "0" if out in ("-0", "0") else out


def fcost(x: Any, missing: str = MISSING) -> str:
    """A normalised cost: always four decimals, so 1.0000 vs 0.9873 line up."""
    v = num(x)
    return missing if v is None else f"{v:.4f}"


def power(x: Any, missing: str = MISSING) -> str:
    """A power in mW shown in the unit that keeps it readable (mW, µW or nW)."""
    v = num(x)
    if v is None:
        return missing
    for scale, unit in ((1.0, "mW"), (1e-3, "µW"), (1e-6, "nW")):
        if abs(v) >= scale or unit == "nW":
            return f"{fnum(v / scale)} {unit}"
    return f"{fnum(v)} mW"


def with_unit(x: Any, unit: str, digits: int = 4, missing: str = MISSING) -> str:
    s = fnum(x, digits, missing)
    return s if s == missing or not unit else f"{s} {unit}"


def pct(x: Any, digits: int = 1, signed: bool = True, missing: str = MISSING) -> str:
    v = num(x)
    if v is None:
        return missing
    out = f"{v:+.{digits}f}%" if signed else f"{v:.{digits}f}%"
    zero = f"{0:.{digits}f}%"
    return zero if out.lstrip("+-") == zero else out


def change_pct(initial: Any, best: Any) -> float | None:
    """Relative change best vs initial in percent (negative = smaller)."""
    a, b = num(initial), num(best)
    if a is None or b is None or a == 0:
        return None
    return (b - a) / abs(a) * 100.0


def reduction_pct(initial: Any, best: Any) -> float | None:
    """Cost reduction in percent: 100 * (1 - best/initial)."""
    c = change_pct(initial, best)
    return None if c is None else -c


def seconds(x: Any, missing: str = MISSING) -> str:
    v = num(x)
    if v is None:
        return missing
    if v < 120:
        return f"{v:.1f} s"
    m, s = divmod(int(round(v)), 60)
    h, m = divmod(m, 60)
    return f"{h}h {m:02d}m {s:02d}s" if h else f"{m}m {s:02d}s"


def mean_std(mean: Any, std: Any, digits: int = 4, missing: str = MISSING) -> str:
    m = fnum(mean, digits, missing)
    if m == missing:
        return m
    s = num(std)
    return m if s is None else f"{m} ± {fnum(s, 2)}"
