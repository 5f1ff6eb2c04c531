"""Reader for the mapped netlist as Yosys writes it in JSON (``write_json``): exact, no Verilog parsing.

Each module has ports (direction, bits), cells (type, pin -> bits) and netnames (name -> bits); a bit is
a net number, or a constant "0"/"1"/"x"/"z". From it: the cell histogram (hierarchy expanded) and a
flat connectivity view (leaf instances and nets, hierarchy folded with a union-find) for activity power.

The activity simulation runs the Verilog netlist (``write_verilog``), whose VCD names Yosys' private
``$``-names as ``_NNN_``; ``verilog_names`` repeats that renaming (Yosys 0.23, backends/verilog) so the
flat view's instance paths and bit names are the ones the simulator dumps.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ToolError

Bit = int | str  # a net number, or a constant "0", "1", "x", "z"
_AUTO_PUBLIC = re.compile(r"^_(\d+)_?$")  # a public name the Verilog backend's counter must step over


@dataclass(frozen=True)
class Cell:
    name: str  # as in the JSON: public names without the backslash, private ones with their "$"
    type: str
    connections: dict[str, tuple[Bit, ...]]  # pin -> bits, LSB first


@dataclass(frozen=True)
class Wire:
    """A port or netname: its bits (LSB first) and how Verilog numbers them."""

    bits: tuple[Bit, ...]
    offset: int = 0
    upto: bool = False

    def bit_names(self, name: str) -> list[str]:
        """``name`` for one bit, else ``name[i]`` per bit (LSB first), as Verilog and the VCD index them."""
        if len(self.bits) == 1:
            return [name]
        n = len(self.bits)
        return [f"{name}[{self.offset + (n - 1 - i if self.upto else i)}]" for i in range(n)]


@dataclass
class Module:
    name: str
    ports: dict[str, tuple[str, Wire]] = field(default_factory=dict)  # name -> (direction, wire)
    cells: list[Cell] = field(default_factory=list)
    netnames: dict[str, Wire] = field(default_factory=dict)


def _bits(raw: object, where: str) -> tuple[Bit, ...]:
    if not isinstance(raw, list) or not all(isinstance(b, int | str) for b in raw):
        raise ToolError(f"{where}: expected a list of bits")
    return tuple(raw)


def _wire(raw: dict[str, object], where: str) -> Wire:
    offset = raw.get("offset", 0)
    return Wire(_bits(raw.get("bits"), where), offset if isinstance(offset, int) else 0, bool(raw.get("upto", 0)))


def parse_netlist(text: str, where: str = "netlist") -> dict[str, Module]:
    """The modules of a Yosys JSON netlist; a file that is not one is a one-line ToolError."""
    try:
        raw = json.loads(text)["modules"]
        modules: dict[str, Module] = {}
        for mname, m in raw.items():
            mod = Module(mname)
            for pname, p in m.get("ports", {}).items():
                mod.ports[pname] = (str(p["direction"]), _wire(p, f"{where}: {mname}.{pname}"))
            for cname, c in m.get("cells", {}).items():
                conns = {pin: _bits(b, f"{where}: {mname}.{cname}.{pin}") for pin, b in c["connections"].items()}
                mod.cells.append(Cell(cname, str(c["type"]), conns))
            for nname, n in m.get("netnames", {}).items():
                mod.netnames[nname] = _wire(n, f"{where}: {mname}.{nname}")
            modules[mname] = mod
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ToolError(f"{where}: not a Yosys JSON netlist ({type(exc).__name__}: {exc})") from None
    if not modules:
        raise ToolError(f"{where}: no module found in the mapped netlist")
    return modules


def read_netlist(path: Path) -> dict[str, Module]:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ToolError(f"cannot read netlist {path}: {exc.strerror}") from None
    return parse_netlist(text, where=str(path))


def verilog_names(mod: Module) -> dict[str, str]:
    """JSON name -> the name ``write_verilog`` gives it (private ``$``-names of wires, then cells, become
    ``_NNN_``, numbered after any public ``_N_`` name, zero-padded to one width)."""
    offset = 0
    for name in [mod.name, *mod.netnames, *(c.name for c in mod.cells), *(c.type for c in mod.cells)]:
        m = _AUTO_PUBLIC.match(name)
        if m:
            offset = max(offset, int(m.group(1)) + 1)
    private = [n for n in mod.netnames if n.startswith("$")] + [c.name for c in mod.cells if c.name.startswith("$")]
    digits = 1
    while 10 ** digits < offset + len(private):
        digits += 1
    out = {n: n for n in mod.netnames}
    out.update({c.name: c.name for c in mod.cells})
    out.update({n: f"_{offset + i:0{digits}d}_" for i, n in enumerate(private)})
    return out


def histogram(modules: dict[str, Module], top: str) -> Counter[str]:
    """Leaf-cell counts of ``top`` with the hierarchy expanded."""
    if top not in modules:
        raise ToolError(f"netlist has no module {top!r}")
    out: Counter[str] = Counter()

    def walk(name: str, depth: int) -> None:
        if depth > 64:
            raise ToolError("netlist hierarchy is recursive")
        for cell in modules[name].cells:
            if cell.type in modules:
                walk(cell.type, depth + 1)
            else:
                out[cell.type] += 1

    walk(top, 0)
    return out


@dataclass
class FlatNetlist:
    """Leaf instances with hierarchical paths, and the flat net each of their pins sits on."""

    instances: list[tuple[str, str, dict[str, int]]]  # path, cell, pin -> net id
    net_names: dict[int, str]  # a representative name per net (top-level port names win)
    top_ports: dict[str, tuple[str, int]]  # bit name -> (direction, net id)
    aliases: dict[str, int] = field(default_factory=dict)  # every hierarchical bit name -> net id


class _UnionFind:
    def __init__(self) -> None:
        self.parent: list[int] = []

    def make(self) -> int:
        self.parent.append(len(self.parent))
        return len(self.parent) - 1

    def find(self, x: int) -> int:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def flatten(modules: dict[str, Module], top: str) -> FlatNetlist:
    """Leaf instances and flat nets of ``top``, with the Verilog (simulator) names of instances and bits."""
    uf = _UnionFind()
    leaves: list[tuple[str, str, dict[str, int]]] = []
    names: dict[int, str] = {}
    aliases: dict[str, int] = {}

    def bind(bound: dict[Bit, int], bit: Bit, net: int) -> None:
        if bit in bound:  # one bit on two ports (or a constant on two outputs): one net
            uf.union(bound[bit], net)
        else:
            bound[bit] = net

    def walk(mod: Module, prefix: str, bound: dict[Bit, int], depth: int) -> None:
        if depth > 64:
            raise ToolError("netlist hierarchy is recursive")
        local = dict(bound)
        vnames = verilog_names(mod)

        def net(bit: Bit, hint: str) -> int:
            if bit not in local:
                local[bit] = uf.make()
                names[local[bit]] = prefix + (hint if isinstance(bit, int) else f"<const:1'b{bit}>")
            return local[bit]

        for nname, wire in mod.netnames.items():
            for bit, bname in zip(wire.bits, wire.bit_names(vnames[nname]), strict=True):
                aliases.setdefault(prefix + bname, net(bit, bname))
        for cell in mod.cells:
            path = prefix + vnames[cell.name]
            sub = modules.get(cell.type)
            if sub is None:
                pins = {pin: net(bits[0], f"{path}.{pin}") for pin, bits in cell.connections.items() if len(bits) == 1}
                leaves.append((path, cell.type, pins))
                continue
            sub_bound: dict[Bit, int] = {}
            for pin, bits in cell.connections.items():
                port = sub.ports.get(pin)
                if port is None:
                    raise ToolError(f"netlist: {cell.type} has no port {pin!r} (instance {path})")
                for pbit, bit in zip(port[1].bits, bits, strict=False):  # an unconnected pin has no bits
                    bind(sub_bound, pbit, net(bit, f"{path}.{pin}"))
            walk(sub, path + ".", sub_bound, depth + 1)

    topmod = modules.get(top)
    if topmod is None:
        raise ToolError(f"netlist has no module {top!r}")
    ports: dict[str, tuple[str, int]] = {}
    bound: dict[Bit, int] = {}
    for pname, (direction, wire) in topmod.ports.items():
        numbered = topmod.netnames.get(pname, wire)  # the netname carries the index offset for certain
        for bit, bname in zip(wire.bits, numbered.bit_names(pname), strict=True):
            ports[bname] = (direction, uf.make())
            names[ports[bname][1]] = bname
            bind(bound, bit, ports[bname][1])
    walk(topmod, "", bound, 0)
    inst = [(p, c, {pin: uf.find(n) for pin, n in pins.items()}) for p, c, pins in leaves]
    rep: dict[int, str] = {}
    for nid, nm in sorted(names.items()):
        rep.setdefault(uf.find(nid), nm)
    top_ports = {b: (d, uf.find(n)) for b, (d, n) in ports.items()}
    return FlatNetlist(inst, rep, top_ports, {n: uf.find(i) for n, i in aliases.items()})
