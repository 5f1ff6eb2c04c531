"""Reader for the structural Verilog netlist Yosys writes (``write_verilog -noattr -noexpr``).

Gives the cell histogram and a flat connectivity view (instances and nets, hierarchy folded with a
union-find) that activity-based power needs. Only the constructs that backend emits are accepted.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ToolError

_MODULE = re.compile(r"\bmodule\s+(\\\S+\s|[A-Za-z_][\w$]*)\s*(?:\(([^;]*)\))?\s*;(.*?)\bendmodule\b", re.S)
_DECL = re.compile(r"^\s*(input|output|inout|wire)\s*(?:signed\s*)?(\[\s*(-?\d+)\s*:\s*(-?\d+)\s*\])?\s*([^;]+);", re.M)
_INST = re.compile(r"^\s*(\\\S+\s|[A-Za-z_][\w$]*)\s+(\\\S+\s|[A-Za-z_][\w$]*)\s*\((.*?)\)\s*;", re.M | re.S)
_CONN = re.compile(r"\.([A-Za-z_][\w$]*)\s*\(\s*([^()]*?)\s*\)")
_ASSIGN = re.compile(r"^\s*assign\s+(.+?)\s*=\s*(.+?)\s*;", re.M)
_KEYWORDS = {"input", "output", "inout", "wire", "reg", "assign", "module", "endmodule"}


def norm(name: str) -> str:
    """Escaped identifiers without the backslash and the terminating space."""
    name = name.strip()
    return name[1:].strip() if name.startswith("\\") else name


@dataclass
class Module:
    name: str
    ports: dict[str, tuple[str, int | None, int | None]] = field(default_factory=dict)  # dir, msb, lsb
    instances: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)  # cell, name, pin->net
    assigns: list[tuple[str, str]] = field(default_factory=list)
    vectors: dict[str, tuple[int, int]] = field(default_factory=dict)

    def bits(self, ref: str) -> list[str]:
        """Bit-level names of a connection expression: ``a`` (vector) -> a[7]..a[0]."""
        ref = ref.strip()
        if ref.startswith("{"):
            return [b for part in _split_concat(ref[1:-1]) for b in self.bits(part)]
        if re.match(r"^\d*'[bBdDhHoO]", ref) or re.match(r"^\d+$", ref):
            return [f"<const:{ref}>"]
        name = norm(ref)
        if name in self.vectors and "[" not in ref.split("\\")[-1][len(name):]:
            msb, lsb = self.vectors[name]
            step = -1 if msb >= lsb else 1
            return [f"{name}[{i}]" for i in range(msb, lsb + step, step)]
        m = re.match(r"^(\\\S+\s|[A-Za-z_][\w$]*)\s*\[(\d+)\]$", ref)
        if m:
            return [f"{norm(m.group(1))}[{m.group(2)}]"]
        return [name]


def _split_concat(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


def parse_netlist(text: str, where: str = "netlist") -> dict[str, Module]:
    modules: dict[str, Module] = {}
    for m in _MODULE.finditer(text):
        mod = Module(norm(m.group(1)))
        body = m.group(3)
        for d in _DECL.finditer(body):
            kind, rng, msb, lsb, names = d.groups()
            for nm in (norm(x) for x in re.split(r",(?![^\[]*\])", names) if x.strip()):
                if rng:
                    mod.vectors[nm] = (int(msb), int(lsb))
                if kind != "wire":
                    mod.ports[nm] = (kind, int(msb) if rng else None, int(lsb) if rng else None)
        for a in _ASSIGN.finditer(body):
            mod.assigns.append((a.group(1), a.group(2)))
        stripped = _ASSIGN.sub("", _DECL.sub("", body))
        for inst in _INST.finditer(stripped):
            cell, name, conns = norm(inst.group(1)), norm(inst.group(2)), inst.group(3)
            if cell in _KEYWORDS:
                continue
            mod.instances.append((cell, name, {p: v for p, v in _CONN.findall(conns)}))
        modules[mod.name] = mod
    if not modules:
        raise ToolError(f"{where}: no module found in the mapped netlist")
    return modules


def histogram(modules: dict[str, Module], top: str) -> Counter[str]:
    """Leaf-cell counts of ``top`` with the hierarchy expanded."""
    if top not in modules:
        raise ToolError(f"netlist has no module {top!r}")
    out: Counter[str] = Counter()

    def walk(name: str, mult: int, depth: int) -> None:
        if depth > 64:
            raise ToolError("netlist hierarchy is recursive")
        for cell, _inst, _c in modules[name].instances:
            if cell in modules:
                walk(cell, mult, depth + 1)
            else:
                out[cell] += mult

    walk(top, 1, 0)
    return out


@dataclass
class FlatNetlist:
    """Leaf instances with hierarchical paths, and the flat net each of their pins sits on."""

    instances: list[tuple[str, str, dict[str, int]]]  # path, cell, pin -> net id
    net_names: dict[int, str]  # a representative name per net (top-level names win)
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
    uf = _UnionFind()
    leaves: list[tuple[str, str, dict[str, int]]] = []
    names: dict[int, str] = {}
    aliases: dict[str, int] = {}

    def walk(mod: Module, prefix: str, bound: dict[str, int], depth: int) -> None:
        if depth > 64:
            raise ToolError("netlist hierarchy is recursive")
        local = dict(bound)
        for bit, nid in bound.items():
            aliases.setdefault(prefix + bit, nid)

        def net(bit: str) -> int:
            if bit not in local:
                local[bit] = uf.make()
                names.setdefault(local[bit], prefix + bit)
                aliases.setdefault(prefix + bit, local[bit])
            return local[bit]

        for lhs, rhs in mod.assigns:
            lb, rb = mod.bits(lhs), mod.bits(rhs)
            for a, b in zip(lb, rb, strict=False):  # Yosys pads -simple-lhs assigns; extra bits stay apart
                uf.union(net(a), net(b))
        for cell, inst, conns in mod.instances:
            if cell in modules:
                sub = modules[cell]
                sub_bound: dict[str, int] = {}
                for pin, ref in conns.items():
                    bits = mod.bits(ref) if ref else []
                    port_bits = sub.bits(pin)
                    for pb, b in zip(port_bits, bits, strict=False):  # an unconnected pin has no bits
                        sub_bound[pb] = net(b)
                walk(sub, f"{prefix}{inst}.", sub_bound, depth + 1)
            else:
                pins = {}
                for pin, ref in conns.items():
                    bits = mod.bits(ref) if ref else []
                    if len(bits) == 1:
                        pins[pin] = net(bits[0])
                leaves.append((prefix + inst, cell, pins))

    topmod = modules.get(top)
    if topmod is None:
        raise ToolError(f"netlist has no module {top!r}")
    ports: dict[str, int] = {}
    for pname in topmod.ports:
        for b in topmod.bits(pname):
            ports[b] = uf.make()
            names[ports[b]] = b
    walk(topmod, "", ports, 0)
    inst = [(p, c, {pin: uf.find(n) for pin, n in pins.items()}) for p, c, pins in leaves]
    rep: dict[int, str] = {}
    for nid, nm in sorted(names.items()):
        rep.setdefault(uf.find(nid), nm)
    top_ports = {b: (topmod.ports[b.split("[")[0]][0], uf.find(n)) for b, n in ports.items()}
    return FlatNetlist(inst, rep, top_ports, {n: uf.find(i) for n, i in aliases.items()})


def read_netlist(path: Path) -> dict[str, Module]:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ToolError(f"cannot read netlist {path}: {exc.strerror}") from None
    return parse_netlist(text, where=str(path))
