"""``anneal`` and ``tunables``: the Phase-2 search and the parameters it may set."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from ..hdl.literals import identifier, param_value
from .model import Model


class Anneal(Model):
    iterations: int = Field(default=100, ge=0, le=1_000_000)
    seed: int = 1
    chains: int = Field(default=2, ge=1, le=64)
    t0: float | None = Field(default=None, gt=0)
    cooling: float = Field(default=0.95, gt=0, lt=1)
    t_min: float = Field(default=1e-4, gt=0)
    reheat_after: int = Field(default=15, ge=1)
    # geometric: T0 * cooling^i; acceptance: the temperature follows a target acceptance rate (search/schedule.py)
    schedule: Literal["geometric", "acceptance"] = "geometric"
    polish: int = Field(default=3, ge=0, le=100)
    moves: list[str] | None = None
    jobs: int | None = Field(default=None, ge=1, le=256)


class Tunable(Model):
    name: str
    values: list[int | str] = Field(min_length=1)

    @field_validator("name")
    @classmethod
    def _ident(cls, v: str) -> str:
        return identifier(v, "parameter")

    @field_validator("values")
    @classmethod
    def _literals(cls, v: list[int | str]) -> list[int | str]:
        for x in v:
            param_value(x, "value")  # the one rule every tool reads alike (hdl.literals)
        return v
