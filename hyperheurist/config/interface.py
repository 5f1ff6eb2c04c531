"""``interface``: the ports every candidate must expose, with the clock and reset."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from ..hdl.literals import identifier
from .model import Model


class Reset(Model):
    name: str
    active: Literal["low", "high"] = "low"
    sync: bool = True

    @field_validator("name")
    @classmethod
    def _ident(cls, v: str) -> str:
        return identifier(v, "reset")


class Port(Model):
    name: str
    dir: Literal["input", "output", "inout"]
    width: int = Field(ge=1, le=4096)
    signed: bool = False

    @field_validator("name")
    @classmethod
    def _ident(cls, v: str) -> str:
        return identifier(v, "port")


class Interface(Model):
    clock: str | None = None
    reset: Reset | None = None
    ports: list[Port] = Field(min_length=1)

    @field_validator("clock")
    @classmethod
    def _clock(cls, v: str | None) -> str | None:
        return None if v is None else identifier(v, "clock")  # it is written into generated testbenches

    @model_validator(mode="after")
    def _consistent(self) -> Interface:
        names = [p.name for p in self.ports]
        dupes = {n for n in names if names.count(n) > 1}
        if dupes:
            raise ValueError(f"duplicate port names: {', '.join(sorted(dupes))}")
        for special in (self.clock, self.reset.name if self.reset else None):
            if special is None:
                continue
            listed = [p for p in self.ports if p.name == special]
            if listed and (listed[0].dir != "input" or listed[0].width != 1):
                raise ValueError(f"{special} must be a 1-bit input")
        if not any(p.dir == "output" for p in self.ports):
            raise ValueError("the interface has no output port")
        return self

    def all_ports(self) -> list[Port]:
        """Clock and reset (as 1-bit inputs) followed by the listed ports, without repeats."""
        out: list[Port] = []
        listed = {p.name for p in self.ports}
        if self.clock and self.clock not in listed:
            out.append(Port(name=self.clock, dir="input", width=1))
        if self.reset and self.reset.name not in listed:
            out.append(Port(name=self.reset.name, dir="input", width=1))
        return out + list(self.ports)

    def data_inputs(self) -> list[Port]:
        special = {self.clock, self.reset.name if self.reset else None}
        return [p for p in self.ports if p.dir == "input" and p.name not in special]

    def outputs(self) -> list[Port]:
        return [p for p in self.ports if p.dir == "output"]

    @property
    def sequential(self) -> bool:
        return self.clock is not None
