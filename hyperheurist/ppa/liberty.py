"""A small Liberty (.lib) reader: units, voltage, cell area, leakage, pins and internal-power tables.

Only what PPA needs is extracted. The parser is generic (groups, simple and complex attributes),
so it reads other libraries (osu035, sky130, Nangate) as well as OSU018.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ToolError

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}();:,]|[^\s{}();:,"]+')
_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_UNIT = re.compile(r"^\s*([0-9.eE+-]*)\s*([a-zA-Z]+)\s*$")
_PREFIX = {"f": 1e-15, "p": 1e-12, "n": 1e-9, "u": 1e-6, "m": 1e-3, "": 1.0, "k": 1e3}


@dataclass
class Group:
    """One ``name (args) { ... }`` group: simple attributes, complex attributes and subgroups."""

    kind: str
    args: list[str]
    attrs: dict[str, str] = field(default_factory=dict)
    complex: dict[str, list[str]] = field(default_factory=dict)
    groups: list[Group] = field(default_factory=list)

    def sub(self, kind: str) -> list[Group]:
        return [g for g in self.groups if g.kind == kind]


def _unquote(tok: str) -> str:
    return tok[1:-1] if len(tok) >= 2 and tok[0] == tok[-1] == '"' else tok


def parse_groups(text: str, where: str = "liberty") -> Group:
    """Parse Liberty text into a tree of groups; raises ToolError on malformed input."""
    text = _COMMENT.sub(" ", text).replace("\\\r\n", " ").replace("\\\n", " ")
    toks = _TOKEN.findall(text)
    root = Group("<root>", [])
    stack = [root]
    i, n = 0, len(toks)
    try:
        while i < n:
            tok = toks[i]
            if tok == "}":
                if len(stack) == 1:
                    raise ToolError(f"{where}: unbalanced '}}'")
                stack.pop()
                i += 1
                continue
            if tok == ";":
                i += 1
                continue
            nxt = toks[i + 1] if i + 1 < n else ""
            if nxt == ":":
                value = toks[i + 2]
                stack[-1].attrs[tok] = _unquote(value)
                i += 3
                # expressions such as "VDD * 0.9" are kept as their first token; skip the rest
                while i < n and toks[i] not in (";", "}") and not (i + 1 < n and toks[i + 1] in (":", "(")):
                    i += 1
                continue
            if nxt == "(":
                j = i + 2
                args: list[str] = []
                while toks[j] != ")":
                    if toks[j] != ",":
                        args.append(_unquote(toks[j]))
                    j += 1
                j += 1
                if j < n and toks[j] == "{":
                    g = Group(tok, args)
                    stack[-1].groups.append(g)
                    stack.append(g)
                    i = j + 1
                else:
                    stack[-1].complex[tok] = args
                    i = j
                continue
            if not nxt:
                raise IndexError
            raise ToolError(f"{where}: not valid Liberty: unexpected token {tok!r}")
    except IndexError:
        raise ToolError(f"{where}: unreadable liberty, truncated (unexpected end of file)") from None
    if len(stack) != 1:
        raise ToolError(f"{where}: truncated ({len(stack) - 1} unclosed groups)")
    libs = root.sub("library")
    if not libs:
        raise ToolError(f"{where}: no library group (not a Liberty file?)")
    return libs[0]


def _floats(text: str) -> list[float]:
    return [float(x) for x in text.replace(",", " ").split()]


@dataclass(frozen=True)
class Table:
    """A 1-D or 2-D lookup table; variables name what each index means."""

    variables: tuple[str, ...]
    indexes: tuple[tuple[float, ...], ...]
    values: tuple[tuple[float, ...], ...]  # [index_1][index_2]; 1-D tables have one column

    def lookup(self, *, load: float, slew: float) -> float:
        """Bilinear interpolation, clamped to the table's range (no extrapolation surprises)."""
        coords = [load if "capacitance" in v else slew for v in self.variables]
        if not self.indexes:
            return self.values[0][0]
        r, fr = _locate(self.indexes[0], coords[0])
        if len(self.indexes) == 1:
            col = [row[0] for row in self.values] if len(self.values) > 1 else list(self.values[0])
            return _mix(col, r, fr)
        c, fc = _locate(self.indexes[1], coords[1])
        top = _mix(self.values[r], c, fc)
        bot = _mix(self.values[min(r + 1, len(self.values) - 1)], c, fc)
        return top + (bot - top) * fr


def _locate(index: tuple[float, ...], x: float) -> tuple[int, float]:
    if len(index) == 1 or x <= index[0]:
        return 0, 0.0
    if x >= index[-1]:
        return len(index) - 2, 1.0
    k = bisect.bisect_right(index, x) - 1
    return k, (x - index[k]) / (index[k + 1] - index[k])


def _mix(row: Sequence[float], k: int, f: float) -> float:
    if len(row) == 1:
        return row[0]
    return row[k] + (row[min(k + 1, len(row) - 1)] - row[k]) * f


@dataclass(frozen=True)
class InternalPower:
    related_pin: str
    rise: Table | None
    fall: Table | None


@dataclass(frozen=True)
class Pin:
    name: str
    direction: str
    capacitance: float
    function: str | None
    clock: bool
    internal_power: tuple[InternalPower, ...]


@dataclass(frozen=True)
class Cell:
    name: str
    area: float
    leakage: float  # in library leakage units
    pins: dict[str, Pin]
    sequential: bool

    def inputs(self) -> list[Pin]:
        return [p for p in self.pins.values() if p.direction == "input"]

    def outputs(self) -> list[Pin]:
        return [p for p in self.pins.values() if p.direction == "output"]


@dataclass(frozen=True)
class Liberty:
    path: str
    name: str
    digest: str
    time_unit_s: float
    cap_unit_f: float
    leakage_unit_w: float
    voltage: float
    cells: dict[str, Cell]

    @property
    def energy_unit_j(self) -> float:
        # internal_power tables are energies in capacitance x voltage^2 units (pF * V^2 = pJ for OSU)
        return self.cap_unit_f

    def inverter(self) -> Cell:
        """The smallest inverter: the input drive and the output-load reference for STA."""
        invs = [c for c in self.cells.values() if len(c.inputs()) == 1 and len(c.outputs()) == 1
                and not c.sequential and _is_inverter(c.outputs()[0].function, c.inputs()[0].name)]
        if not invs:
            raise ToolError(f"{self.path}: no inverter cell found (needed as the input driving cell)")
        return min(invs, key=lambda c: (c.area, c.name))


def _is_inverter(function: str | None, pin: str) -> bool:
    if not function:
        return False
    f = function.replace(" ", "").strip('"')
    return f in (f"!{pin}", f"(!{pin})", f"{pin}'", f"({pin}')", f"!({pin})")


def _unit(text: str | None, base: str, default: float) -> float:
    if not text:
        return default
    m = _UNIT.match(text)
    if not m or not m.group(2).lower().endswith(base):
        return default
    mult = float(m.group(1)) if m.group(1) else 1.0
    prefix = m.group(2)[: -len(base)]
    return mult * _PREFIX.get(prefix, _PREFIX.get(prefix.lower(), 1.0))


def _cap_unit(lib: Group) -> float:
    args = lib.complex.get("capacitive_load_unit")
    if not args or len(args) < 2:
        return 1e-12
    return float(args[0]) * {"ff": 1e-15, "pf": 1e-12, "nf": 1e-9}.get(args[1].lower(), 1e-12)


def _templates(lib: Group) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for g in lib.groups:
        if g.kind in ("lu_table_template", "power_lut_template") and g.args:
            out[g.args[0]] = tuple(g.attrs[k] for k in ("variable_1", "variable_2", "variable_3") if k in g.attrs)
    return out


def _table(g: Group, templates: dict[str, tuple[str, ...]]) -> Table:
    variables = templates.get(g.args[0] if g.args else "", ())
    idx = tuple(tuple(_floats(" ".join(g.complex[k]))) for k in ("index_1", "index_2") if k in g.complex)
    rows = [tuple(_floats(r)) for r in g.complex.get("values", ["0"])]
    if len(idx) == 1 and len(rows) == 1:
        rows = [(v,) for v in rows[0]]  # a 1-D table is one quoted row: make it a column
    return Table(variables[: len(idx)] or ("input_transition_time",) * len(idx), idx, tuple(rows))


def _pin(g: Group, name: str, templates: dict[str, tuple[str, ...]]) -> Pin:
    powers = []
    for ip in g.sub("internal_power"):
        rise = [_table(t, templates) for t in ip.sub("rise_power")]
        fall = [_table(t, templates) for t in ip.sub("fall_power")]
        power = [_table(t, templates) for t in ip.sub("power")]
        r, f = rise or power, fall or power
        powers.append(InternalPower(ip.attrs.get("related_pin", ""), r[0] if r else None, f[0] if f else None))
    return Pin(name=name, direction=g.attrs.get("direction", "input"),
               capacitance=float(g.attrs.get("capacitance", "0") or 0), function=g.attrs.get("function"),
               clock=g.attrs.get("clock", "false") == "true", internal_power=tuple(powers))


def _cell(g: Group, templates: dict[str, tuple[str, ...]]) -> Cell:
    pins: dict[str, Pin] = {}
    for p in g.sub("pin"):
        for name in p.args:
            pins[name] = _pin(p, name, templates)
    for bus in g.sub("bus") + g.sub("bundle"):
        for p in bus.sub("pin"):
            for name in p.args:
                pins[name] = _pin(p, name, templates)
    leak = g.attrs.get("cell_leakage_power")
    if leak is None:
        vals = [float(lp.attrs.get("value", "0")) for lp in g.sub("leakage_power")]
        leak = str(sum(vals) / len(vals)) if vals else "0"
    seq = bool(g.sub("ff") or g.sub("latch") or g.sub("ff_bank") or g.sub("statetable"))
    return Cell(name=g.args[0], area=float(g.attrs.get("area", "0")), leakage=float(leak), pins=pins,
                sequential=seq)


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@functools.lru_cache(maxsize=8)
def _load(path: str, mtime_ns: int, size: int) -> Liberty:
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ToolError(f"cannot read liberty {path}: {exc.strerror}") from None
    lib = parse_groups(raw.decode("utf-8", errors="replace"), where=path)
    templates = _templates(lib)
    cells = {c.name: c for c in (_cell(g, templates) for g in lib.sub("cell") if g.args)}
    if not cells:
        raise ToolError(f"{path}: liberty has no cells")
    voltage = lib.attrs.get("nom_voltage")
    for oc in lib.sub("operating_conditions"):
        voltage = voltage or oc.attrs.get("voltage")
    return Liberty(
        path=path, name=lib.args[0] if lib.args else Path(path).stem, digest=hashlib.sha256(raw).hexdigest(),
        time_unit_s=_unit(lib.attrs.get("time_unit"), "s", 1e-9), cap_unit_f=_cap_unit(lib),
        leakage_unit_w=_unit(lib.attrs.get("leakage_power_unit"), "w", 1e-9),
        voltage=float(voltage or 1.0), cells=cells,
    )


def read_liberty(path: Path | str) -> Liberty:
    """Parse (once per process and file version) and return the library summary."""
    p = Path(path).expanduser().resolve()
    try:
        st = p.stat()
    except OSError as exc:
        raise ToolError(f"cannot read liberty {p}: {exc.strerror}") from None
    if not p.is_file():
        raise ToolError(f"cannot read liberty {p}: not a file")
    return _load(str(p), st.st_mtime_ns, st.st_size)
