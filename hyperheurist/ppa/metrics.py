"""PPAMetrics: the numbers one estimate produces, as a frozen, JSON-round-trippable record.

``librelane_metrics`` gives the same numbers under the names a LibreLane/OpenROAD flow engineer knows
(``design__instance__area``, ``timing__setup__ws``, ``power__total``, ...; power in W as there), each
with its direction in ``METRIC_DIRECTIONS``: summary.json and a run's flat metrics.json carry them.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from ..recipe import KnobValue
    from .activity import ActivityDetails, VectorlessDetails
    from .critical_path import Stage
    from .synth import SynthFactsDict

FIDELITIES = ("vectorless", "activity")


class PPADetails(TypedDict, total=False):
    """What an estimate records beside its numbers (``estimate.metrics_of`` sets every key but
    ``netlist_reused``); an entry read back from the PPA cache or a journal may be older: readers use ``get``."""

    power: ActivityDetails | VectorlessDetails  # the power stage's model and inputs
    yosys_warnings: int  # how many warnings synthesis printed
    critical_path_stages: list[Stage]
    recipe: dict[str, KnobValue]  # Recipe.to_dict()
    candidate: str  # the RTL's digest
    netlist_digest: str
    synth_facts: SynthFactsDict  # what synthesis' log said (FSMs, share candidates), for the knob pruning
    netlist_reused: bool  # STA and power came from an earlier evaluation of the same mapped netlist


class PPAJson(TypedDict):
    """``PPAMetrics.to_dict()``: the fields in order, without ``cached`` (ppa.json, the journal, the cache, the
    prompts' measurements)."""

    area_um2: float
    cells: int
    cell_histogram: dict[str, int]
    delay_ns: float
    slack_ns: float
    fmax_mhz: float
    met_timing: bool
    critical_path: dict[str, str]
    power_mw: float
    dynamic_mw: float
    leakage_mw: float
    power_fidelity: str
    liberty: str
    timings: dict[str, float]
    clock_period_ns: float
    area_by_cell: dict[str, float]
    power_split: dict[str, float]
    details: PPADetails


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
    details: PPADetails = field(default_factory=lambda: PPADetails())
    cached: bool = field(default=False, compare=False)

    def to_dict(self) -> PPAJson:
        """The JSON form: every field but ``cached``, in order, nested values copied."""
        return copy.deepcopy(PPAJson(
            area_um2=self.area_um2, cells=self.cells, cell_histogram=self.cell_histogram, delay_ns=self.delay_ns,
            slack_ns=self.slack_ns, fmax_mhz=self.fmax_mhz, met_timing=self.met_timing,
            critical_path=self.critical_path, power_mw=self.power_mw, dynamic_mw=self.dynamic_mw,
            leakage_mw=self.leakage_mw, power_fidelity=self.power_fidelity, liberty=self.liberty,
            timings=self.timings, clock_period_ns=self.clock_period_ns, area_by_cell=self.area_by_cell,
            power_split=self.power_split, details=self.details))

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> PPAMetrics:
        """A JSON edge: ``to_dict()``'s output read back from disk (keys it does not know are ignored; values are
        taken as written, the PPA cache checks them first with ``ppa.cache._plausible``)."""
        known = {f.name for f in fields(cls)} - {"cached"}
        kwargs: dict[str, Any] = {k: v for k, v in d.items() if k in known}
        return cls(**kwargs)


# LibreLane name -> (its value in our metrics, direction); power converted mW -> W
_LIBRELANE: dict[str, tuple[Callable[[PPAMetrics], float], str]] = {
    "design__instance__area": (lambda m: m.area_um2, "minimize"),
    "design__instance__count": (lambda m: m.cells, "minimize"),
    "timing__setup__ws": (lambda m: m.slack_ns, "maximize"),
    "timing__setup__wns": (lambda m: min(0.0, m.slack_ns), "maximize"),
    "timing__setup__tns": (lambda m: min(0.0, m.slack_ns), "maximize"),  # one clock, one worst path: tns = wns
    "timing__critical_path__delay": (lambda m: m.delay_ns, "minimize"),
    "timing__fmax": (lambda m: m.fmax_mhz, "maximize"),
    "power__total": (lambda m: m.power_mw / 1000.0, "minimize"),
    "power__internal__total": (lambda m: m.power_split.get("internal_mw", 0.0) / 1000.0, "minimize"),
    "power__switching__total": (lambda m: m.power_split.get("switching_mw", 0.0) / 1000.0, "minimize"),
    "power__leakage__total": (lambda m: m.leakage_mw / 1000.0, "minimize"),
}
METRIC_DIRECTIONS: dict[str, str] = {name: direction for name, (_, direction) in _LIBRELANE.items()}


def librelane_metrics(m: PPAMetrics | None) -> dict[str, float]:
    """The flat LibreLane-named view of one design's metrics (empty when there are none)."""
    if m is None:
        return {}
    out: dict[str, float] = {}
    for name, (value, _) in _LIBRELANE.items():
        out[name] = float(value(m)) if name != "design__instance__count" else int(value(m))
    return out
