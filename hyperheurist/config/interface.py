"""``interface``: the ports every candidate must expose, with the clocks and resets and their domains."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from ..hdl.literals import identifier
from .model import Model


class Clock(Model):
    name: str  # clock input
    domain: str | None = None  # clock domain name (default: the clock's name)
    period_ns: float | None = Field(default=None, gt=0, le=1e6)  # SDC period (default: ppa.clock_period_ns)

    @field_validator("name")
    @classmethod
    def _ident(cls, v: str) -> str:
        return identifier(v, "clock")  # it is written into generated testbenches and SDC

    @property
    def domain_name(self) -> str:
        return self.domain or self.name


class Reset(Model):
    name: str
    active: Literal["low", "high"] = "low"
    sync: bool = True
    domain: str | None = None  # the clock domain it resets (default: the first clock's)

    @field_validator("name")
    @classmethod
    def _ident(cls, v: str) -> str:
        return identifier(v, "reset")


MAX_PORT_BITS = 65536


class Port(Model):
    """A port. An unpacked array port (``input [7:0] d [0:7]``) is ``width: 8, unpacked: [0, 7]``: every tool
    sees it as one vector of ``bits`` (element i from the left bound at bits [(i+1)*width-1 : i*width])."""

    name: str
    dir: Literal["input", "output", "inout"]
    width: int = Field(ge=1, le=4096)  # width in bits after default parameters (of one element, for an unpacked array)
    signed: bool = False
    domain: str | None = None  # the clock domain it is timed against (default: the first clock's)
    unpacked: tuple[int, int] | None = None  # [left, right] bounds of an unpacked array port, as declared

    @field_validator("name")
    @classmethod
    def _ident(cls, v: str) -> str:
        return identifier(v, "port")

    @model_validator(mode="after")
    def _array(self) -> Port:
        if self.unpacked is not None:
            if self.dir == "inout":
                raise ValueError(f"port {self.name}: an unpacked array port must be an input or an output")
            if self.bits > MAX_PORT_BITS:
                raise ValueError(f"port {self.name}: {self.bits} bits in all (at most {MAX_PORT_BITS})")
        return self

    @property
    def elements(self) -> int:
        return abs(self.unpacked[0] - self.unpacked[1]) + 1 if self.unpacked is not None else 1

    @property
    def bits(self) -> int:
        """The port's bits as every tool sees it (an unpacked array flattened, ``hdl.arrays``)."""
        return self.width * self.elements

    def declaration(self) -> str:
        """The port as the RTL declares it (``input signed [7:0] d [0:3]``), for prompts and reports."""
        width = f"[{self.width - 1}:0] " if self.width > 1 else ""
        dims = f" [{self.unpacked[0]}:{self.unpacked[1]}]" if self.unpacked is not None else ""
        return f"{self.dir} {'signed ' if self.signed else ''}{width}{self.name}{dims}"

    def flat(self) -> Port:
        """This port as the tools see it: an unpacked array as one unsigned vector of ``bits``."""
        if self.unpacked is None:
            return self
        return self.model_copy(update={"width": self.bits, "signed": False, "unpacked": None})


class Interface(Model):
    """The ports every candidate must expose. ``clocks`` and ``resets`` are lists (several clock domains);
    ``clock: clk`` and ``reset: {...}`` are the one-clock spellings of one-element lists. The first clock
    and reset are the design's main ones. With several clocks the differential bench drives each with its
    own period (its ratio to the main clock's kept) and each reset with its own schedule; STA gets one
    create_clock per clock, each port timed against its domain's clock and the domains asynchronous; the
    equivalence check steps one clock, so it needs ``synchronous_clocks: true`` and one ``period_ns`` for all.

    Internal: resolved.yaml writes a one-clock interface with ``clock:``/``reset:``."""

    clocks: list[Clock] = []  # clock inputs, one per domain (none: a combinational design).
    resets: list[Reset] = []  # reset inputs, each in its clock's domain.
    synchronous_clocks: bool = False  # the clocks share their edges: one clock group in STA, and formal allowed
    ports: list[Port] = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _one_clock_spelling(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for one, many in (("clock", "clocks"), ("reset", "resets")):
            if one in data:
                if many in data:
                    raise ValueError(f"give {one} or {many}, not both")
                value = data.pop(one)
                data[many] = [] if value is None else [{"name": value} if isinstance(value, str) else value]
        return data

    @model_validator(mode="after")
    def _consistent(self) -> Interface:
        names = [p.name for p in self.ports]
        dupes = {n for n in names if names.count(n) > 1}
        if dupes:
            raise ValueError(f"duplicate port names: {', '.join(sorted(dupes))}")
        special = [c.name for c in self.clocks] + [r.name for r in self.resets]
        twice = {n for n in special if special.count(n) > 1}
        if twice:
            raise ValueError(f"named twice as a clock or reset: {', '.join(sorted(twice))}")
        for name in special:
            listed = [p for p in self.ports if p.name == name]
            if listed and (listed[0].dir != "input" or listed[0].bits != 1 or listed[0].unpacked is not None):
                raise ValueError(f"{name} must be a 1-bit input")
        domains = [c.domain_name for c in self.clocks]
        if len(set(domains)) != len(domains):
            raise ValueError(f"two clocks of one domain: {', '.join(domains)}")
        for what, items in (("reset", self.resets), ("port", self.ports)):
            for item in items:
                if item.domain is not None and item.domain not in domains:
                    raise ValueError(f"{what} {item.name}: domain {item.domain!r} is not a clock's "
                                     f"(domains: {', '.join(domains) or 'none'})")
        if self.resets and not self.clocks:
            raise ValueError("a reset needs a clock")
        if not any(p.dir == "output" for p in self.ports):
            raise ValueError("the interface has no output port")
        return self

    @property
    def clock(self) -> str | None:
        """The main (first) clock; None for a combinational design."""
        return self.clocks[0].name if self.clocks else None

    @property
    def reset(self) -> Reset | None:
        """The main (first) reset."""
        return self.resets[0] if self.resets else None

    def special_names(self) -> set[str]:
        return {c.name for c in self.clocks} | {r.name for r in self.resets}

    def declared_ports(self) -> list[Port]:
        """Clocks and resets (as 1-bit inputs) followed by the listed ports, without repeats, as the RTL
        declares them (unpacked arrays kept)."""
        listed = {p.name for p in self.ports}
        special = [c.name for c in self.clocks] + [r.name for r in self.resets]
        return [Port(name=n, dir="input", width=1) for n in special if n not in listed] + list(self.ports)

    def all_ports(self) -> list[Port]:
        """``declared_ports`` as the tools see them (unpacked arrays flattened: ``Port.flat``)."""
        return [p.flat() for p in self.declared_ports()]

    def data_inputs(self) -> list[Port]:
        """Inputs other than clocks and resets, as the tools see them."""
        special = self.special_names()
        return [p.flat() for p in self.ports if p.dir == "input" and p.name not in special]

    def outputs(self) -> list[Port]:
        """Outputs, as the tools see them."""
        return [p.flat() for p in self.ports if p.dir == "output"]

    def domain_clock(self, domain: str | None) -> Clock:
        """The clock of ``domain`` (None: the main clock's); the design must have a clock."""
        return next((c for c in self.clocks if c.domain_name == domain), self.clocks[0])

    @property
    def sequential(self) -> bool:
        return bool(self.clocks)

    @property
    def asynchronous_domains(self) -> bool:
        """Several clocks whose edges are not declared to coincide."""
        return len(self.clocks) > 1 and not self.synchronous_clocks

    @property
    def lockstep_clocks(self) -> bool:
        """Every clock has every edge of the main clock: one clock, or synchronous clocks of one period.
        The equivalence check steps every register on one global clock, which is exact only then (a counter
        moved to a synchronous clock of twice the period is equal in lockstep, and different in silicon)."""
        return len(self.clocks) <= 1 or (self.synchronous_clocks and len({c.period_ns for c in self.clocks}) == 1)
