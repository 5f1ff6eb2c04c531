"""PPAMetrics: the numbers one estimate produces, as a frozen, JSON-round-trippable record."""

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
    critical_path: dict  # {"start", "end", and the kinds of each}
    power_mw: float
    dynamic_mw: float
    leakage_mw: float
    power_fidelity: str
    liberty: str
    timings: dict  # {"synth_s", "sta_s", "power_s"}
    clock_period_ns: float = 0.0
    area_by_cell: dict[str, float] = field(default_factory=dict)
    power_split: dict[str, float] = field(default_factory=dict)  # internal_mw, switching_mw, leakage_mw
    details: dict = field(default_factory=dict)
    cached: bool = field(default=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("cached")
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "PPAMetrics":
        known = {f.name for f in fields(cls)} - {"cached"}
        return cls(**{k: v for k, v in d.items() if k in known})
