"""PPAMetrics: the numbers one estimate produces, as a frozen, JSON-round-trippable record.

``librelane_metrics`` gives the same numbers under the names a LibreLane/OpenROAD flow engineer knows
(``design__instance__area``, ``timing__setup__ws``, ``power__total``, ...; power in W as there), each
with its direction in ``METRIC_DIRECTIONS``: summary.json and a run's flat metrics.json carry them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

FIDELITIES = ("vectorless", "activity")


@dataclass(frozen=True)
class PPAMetrics:
    area_um2: float
    cells: int
    cell_histogram: dict[str, int]
    delay_ns: float
    slack_ns: float
    fmax_mhz: float
    met_timing: bool
    critical_path: dict[str, str]  # {"start", "end", and the kinds of each, "group"}
    power_mw: float
    dynamic_mw: float
    leakage_mw: float
    power_fidelity: str
    liberty: str
    timings: dict[str, float]  # {"synth_s", "sta_s", "power_s"}
    clock_period_ns: float = 0.0
    area_by_cell: dict[str, float] = field(default_factory=dict)
    power_split: dict[str, float] = field(default_factory=dict)  # internal_mw, switching_mw, leakage_mw
    details: dict[str, Any] = field(default_factory=dict)  # free-form JSON: power model, recipe, ...
    cached: bool = field(default=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("cached")
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PPAMetrics:
        known = {f.name for f in fields(cls)} - {"cached"}
        return cls(**{k: v for k, v in d.items() if k in known})


# LibreLane name -> (our field or a function of the metrics dict, direction); power converted mW -> W
_LIBRELANE: dict[str, tuple[Any, str]] = {
    "design__instance__area": ("area_um2", "minimize"),
    "design__instance__count": ("cells", "minimize"),
    "timing__setup__ws": ("slack_ns", "maximize"),
    "timing__setup__wns": (lambda m: min(0.0, m["slack_ns"]), "maximize"),
    "timing__setup__tns": (lambda m: min(0.0, m["slack_ns"]), "maximize"),  # one clock, one worst path: tns = wns
    "timing__critical_path__delay": ("delay_ns", "minimize"),
    "timing__fmax": ("fmax_mhz", "maximize"),
    "power__total": (lambda m: m["power_mw"] / 1000.0, "minimize"),
    "power__internal__total": (lambda m: m.get("power_split", {}).get("internal_mw", 0.0) / 1000.0, "minimize"),
    "power__switching__total": (lambda m: m.get("power_split", {}).get("switching_mw", 0.0) / 1000.0, "minimize"),
    "power__leakage__total": (lambda m: m["leakage_mw"] / 1000.0, "minimize"),
}
METRIC_DIRECTIONS: dict[str, str] = {name: direction for name, (_, direction) in _LIBRELANE.items()}


def librelane_metrics(m: PPAMetrics | dict[str, Any] | None) -> dict[str, float]:
    """The flat LibreLane-named view of one design's metrics (empty when there are none)."""
    if m is None:
        return {}
    d = m.to_dict() if isinstance(m, PPAMetrics) else m
    out: dict[str, float] = {}
    for name, (src, _) in _LIBRELANE.items():
        try:
            value = src(d) if callable(src) else d[src]
        except (KeyError, TypeError):
            continue  # a metric this estimate did not produce is left out, never invented
        out[name] = float(value) if name != "design__instance__count" else int(value)
    return out
