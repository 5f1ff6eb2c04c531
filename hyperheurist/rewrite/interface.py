"""The interface of a module read from its source, for proving a rewrite of it outside a design.yaml
(a rule's own tests, a QoR pair): ports, directions and widths from ``hdl.ports``."""

from __future__ import annotations

from typing import Literal

from ..config import Clock, Interface, Port, Reset
from ..errors import InputError
from ..hdl.parse import parse
from ..hdl.ports import ElaborationError, read_module

Direction = Literal["input", "output", "inout"]
DIRECTIONS: dict[str, Direction] = {"input": "input", "output": "output", "inout": "inout"}


def module_interface(text: str, top: str, clock: str | None = None, reset: Reset | None = None) -> Interface:
    """``top``'s ports as an Interface with the given clock and reset; InputError when ``top`` does not
    elaborate or a port is not a plain bit vector."""
    try:
        view = read_module([parse(text)], top)
    except ElaborationError as exc:
        raise InputError(str(exc)) from exc
    ports = []
    for p in view.ports:
        if not p.integral or p.unpacked or p.dir not in DIRECTIONS:
            raise InputError(f"{p.where}: port {p.name}: {p.dir} {p.type} is not a bit-vector port")
        ports.append(Port(name=p.name, dir=DIRECTIONS[p.dir], width=p.width, signed=p.signed))
    return Interface(clocks=[Clock(name=clock)] if clock else [], resets=[reset] if reset else [], ports=ports)
