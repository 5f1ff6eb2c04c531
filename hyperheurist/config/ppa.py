"""``ppa``: the liberty, clock, cost weights and objective, and the flow preset the PPA is estimated with."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from ..inputs import input_problem
from .model import Model, base_of
from .paths import is_file, path_text

BUNDLED_LIBERTIES = {
    "osu018": "/usr/share/qflow/tech/osu018/osu018_stdcells.lib",
    "osu035": "/usr/share/qflow/tech/osu035/osu035_stdcells.lib",
    "osu050": "/usr/share/qflow/tech/osu050/osu050_stdcells.lib",
}
FLOWS_DIR = Path(__file__).resolve().parent.parent / "flows"  # package data: works from a wheel too


MAX_WEIGHT = 1e6  # weights are relative: past this a sum of weighted ratios overflows into inf and NaN


class Weights(Model):
    area: float = Field(default=1.0, ge=0, le=MAX_WEIGHT)
    delay: float = Field(default=1.0, ge=0, le=MAX_WEIGHT)
    power: float = Field(default=1.0, ge=0, le=MAX_WEIGHT)

    @model_validator(mode="after")
    def _nonzero(self) -> Weights:
        if self.area + self.delay + self.power <= 0:
            raise ValueError("at least one weight must be positive")
        return self


class _Refused(str):
    """Why ``ppa.liberty`` was refused, carried from the model's validator to the field's (which names it)."""


def liberty_file(value: object, info: ValidationInfo) -> Path:
    """The liberty a ``ppa.liberty`` names: a bundled name, or a file under the one input-path rule (no kernel
    file, no link out of the design folder), checked before anything opens it."""
    lib = path_text(value)
    if lib in BUNDLED_LIBERTIES:
        return Path(BUNDLED_LIBERTIES[lib])
    given = Path(lib).expanduser()
    if not given.is_absolute():
        given = base_of(info) / given
    p = given.resolve()
    if not is_file(p):
        raise ValueError(f"not a bundled name ({', '.join(BUNDLED_LIBERTIES)}) nor a file: {p}")
    problem = input_problem(given, base_of(info))
    if problem:
        raise ValueError(problem)
    return p


class PPA(Model):
    liberty: str = "osu018"
    clock_period_ns: float = Field(default=10.0, gt=0, le=1e6)
    weights: Weights = Weights()
    input_activity: float = Field(default=0.1, ge=0, le=1)
    power: Literal["vectorless", "activity"] = "vectorless"
    timing_penalty: float = Field(default=2.0, ge=0, le=MAX_WEIGHT)
    # constrained (default): meet the clock, then minimise area and power (slack beyond the clock earns
    # nothing); weighted: the mean of area/delay/power ratios, where a faster design counts even with slack
    objective: Literal["weighted", "constrained"] = "constrained"
    flow: str = "default"
    # Yosys' own $div/$mod map took over 600 s on a 32-bit divider (ppa/techmap/wide.py)
    wide_operator_bits: int | None = Field(default=24, ge=2, le=4096)  # $div/$mod this wide: array divider; null: never
    # ABC's default script did not end in 900 s on a 64x64 product, -fast took 13 s (docs/wide-operators.md)
    wide_multiplier_bits: int | None = Field(default=48, ge=2, le=4096)  # a $mul this wide: abc -fast; null: never
    liberty_path: Path | None = None  # filled in by the validator

    @model_validator(mode="before")
    @classmethod
    def _liberty(cls, data: Any, info: ValidationInfo) -> Any:  # any YAML value: field checks come after
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if "liberty_path" in data:
            return data
        try:
            data["liberty_path"] = liberty_file(data.get("liberty", "osu018"), info)
        except ValueError as exc:  # named by the field's own validator: ppa.liberty
            data["liberty"] = _Refused(str(exc))
        return data

    @field_validator("liberty", mode="before")
    @classmethod
    def _liberty_field(cls, v: object) -> object:
        if isinstance(v, _Refused):
            raise ValueError(str(v))
        return v

    @model_validator(mode="after")
    def _objective(self) -> PPA:
        if self.objective == "constrained" and self.weights.area + self.weights.power <= 0:
            raise ValueError("objective constrained: weights.area or weights.power must be positive")
        return self

    @field_validator("flow")
    @classmethod
    def _flow(cls, v: str, info: ValidationInfo) -> str:
        if is_file(FLOWS_DIR / f"{v}.yaml"):
            return v
        p = Path(v)
        if not p.is_absolute():
            p = base_of(info) / p
        if is_file(p):
            problem = input_problem(p, base_of(info))  # no kernel file, no link out of the design folder
            if problem:
                raise ValueError(problem)
            return str(p.resolve())
        bundled = ", ".join(sorted(f.stem for f in FLOWS_DIR.glob("*.yaml")))
        raise ValueError(f"flow preset not found: {v} (bundled: {bundled})")
