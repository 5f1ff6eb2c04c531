"""The critical path in RTL terms: OpenSTA's path report mapped back to signals and source lines.

OpenSTA names the mapped netlist's instances as ``write_verilog`` wrote them (``_118_/Q``); the netlist's
JSON twin (``write_json`` keeps attributes) gives each instance its JSON cell (``verilog_names``), each
cell pin its nets, each public net its name and the ``src`` attribute Yosys carried from the RTL
(``file:line.col-line.col``). Flip-flops keep the ``src`` of their ``always`` block; ports and registers
keep their declaration's. ABC's combinational cells and nets carry none: such a stage is named after the
next public signal its path reaches (``→ s[6]``), with that signal's source line.

Each stage: pin, cell type, rise/fall, incremental and arrival delay (ns), the signal and ``file:line``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import NotRequired, TypedDict

from .netlist import Module, verilog_names

_STAGE = re.compile(r"^\s*(-?[\d.]+(?:e[-+]?\d+)?)\s+(-?[\d.]+(?:e[-+]?\d+)?)\s+([\^v])\s+(\S+)\s+\(([^)]*)\)\s*$")
MAX_STAGES = 200


class Stage(TypedDict):
    """One pin of the path (``details.critical_path_stages`` of a PPA record holds these, as JSON)."""

    pin: str  # ``_118_/Q``, or a port
    cell: str  # the cell type, ``in``/``out`` for a port
    edge: str  # "rise" | "fall"
    incr_ns: float
    time_ns: float  # arrival
    signal: NotRequired[str]  # the RTL signal ("" unknown; ``→ s[6]`` the next named one, with ``via``)
    src: NotRequired[str]  # ``file:line``
    via: NotRequired[bool]


JsonObject = dict[str, object]  # a part of the netlist's Yosys JSON (``write_json``)


def parse_stages(path_report: str, tu_ns: float = 1.0) -> list[Stage]:
    """The data-arrival part of ``report_checks``: one entry per pin with its delay increment and arrival."""
    out: list[Stage] = []
    for line in path_report.splitlines():
        if "data arrival time" in line:
            break
        m = _STAGE.match(line)
        if m:
            incr, at, edge, pin, kind = m.groups()
            out.append(Stage(pin=pin, cell=kind, edge="rise" if edge == "^" else "fall",
                             incr_ns=round(float(incr) * tu_ns, 6), time_ns=round(float(at) * tu_ns, 6)))
    return out[:MAX_STAGES]


def short_src(src: str) -> str:
    """``../src/acc.v:9.5-12.8`` -> ``acc.v:9``: the first location of a ``|``-joined list that is the
    design's (Yosys reads the design from outside its stage folder, ``../``; a location inside it is one of
    hh's own techmap files, not RTL), "" when there is none."""
    first = next((p for p in src.split("|") if p.startswith("../")), "")
    m = re.match(r"^(.*?):(\d+)(?:\.\d+)?(?:-\d+(?:\.\d+)?)?$", first)
    if not m:
        return first
    path = m.group(1)
    while path.startswith("../"):
        path = path[3:]
    if path.startswith("src/"):
        path = path[4:]
    return f"{path}:{m.group(2)}"


class _View:
    """One module of the JSON netlist: instance names as Verilog has them, bit -> public name and src."""

    def __init__(self, mod: Module, raw: JsonObject) -> None:
        self.mod = mod
        names = verilog_names(mod)
        self.by_vname = {names.get(c.name, c.name): c for c in mod.cells}
        self.cell_src = {n: str(as_attrs(c).get("src", "")) for n, c in as_items(raw.get("cells")).items()}
        self.bit_name: dict[int, tuple[str, str]] = {}
        nets = as_items(raw.get("netnames"))
        self.net_src = {n: str(as_attrs(w).get("src", "")) for n, w in nets.items()}
        ports = set(mod.ports)
        order = sorted(mod.netnames.items(), key=lambda kv: (kv[0] not in ports, len(kv[0]), kv[0]))
        for name, wire in order:
            if name.startswith("$") or as_items(nets.get(name)).get("hide_name"):
                continue
            src = self.net_src.get(name, "")
            for bit, bname in zip(wire.bits, wire.bit_names(name), strict=True):
                if isinstance(bit, int):
                    self.bit_name.setdefault(bit, (bname, src))

    def port_bit(self, text: str) -> tuple[str, str]:
        # a port bit: ``x[0]`` is its own net once ``splitnets -ports`` split the port, else a bit of ``x``
        return text, self.net_src.get(text) or self.net_src.get(text.split("[")[0], "")


def as_items(v: object) -> JsonObject:
    return v if isinstance(v, dict) else {}


def as_attrs(v: object) -> JsonObject:
    return as_items(as_items(v).get("attributes"))


def annotate(stages: list[Stage], modules: dict[str, Module], raw_json: JsonObject,
             top: str, outputs: dict[str, set[str]]) -> list[Stage]:
    """Give each stage its ``signal`` and ``src`` (``file:line``); the exact ones first, then, for ABC's
    unnamed nets, the next named signal along the path (``via`` marks those). ``outputs``: cell type ->
    its output pins (from the liberty); a stage at an input pin (a flop's D or clock) names the register."""
    raw_mods = as_items(raw_json.get("modules"))
    views: dict[str, _View] = {}

    def view(name: str) -> _View | None:
        if name not in views and name in modules:
            views[name] = _View(modules[name], as_items(raw_mods.get(name)))
        return views.get(name)

    out = [s.copy() for s in stages]
    for s in out:
        s["signal"], s["src"] = "", ""
        top_view = view(top)
        if top_view is None:
            continue
        if s["cell"] in ("in", "out"):
            s["signal"], src = top_view.port_bit(s["pin"])
            s["src"] = short_src(src)
            continue
        parts = s["pin"].split("/")
        if len(parts) < 2:
            continue
        v: _View | None = top_view
        prefix = ""
        for inst in parts[:-2]:  # descend the kept hierarchy
            c = v.by_vname.get(inst) if v is not None else None
            v = view(c.type) if c is not None else None
            prefix += inst + "."
        if v is None:
            continue
        cell = v.by_vname.get(parts[-2])
        if cell is None:
            continue
        pin, outs = parts[-1], outputs.get(cell.type, set())
        cell_src = v.cell_src.get(cell.name, "")
        names = [v.bit_name[b] for b in cell.connections.get(pin, ()) if b in v.bit_name]
        if pin not in outs:  # a flop's D or clock pin: the register it loads
            names = [v.bit_name[b] for p, bits in cell.connections.items() if p in outs
                     for b in bits if b in v.bit_name]
        if names:
            s["signal"] = prefix + names[0][0]
            s["src"] = short_src(cell_src) or short_src(names[0][1])
        else:
            s["src"] = short_src(cell_src)
    nxt_sig, nxt_src = "", ""
    for s in reversed(out):  # unnamed nets: the next signal the path reaches
        if s["signal"]:
            nxt_sig, nxt_src = s["signal"], s["src"]
        elif nxt_sig:
            s["signal"], s["src"], s["via"] = "→ " + nxt_sig, s["src"] or nxt_src, True
    return out


def rtl_path(path_report: str, tu_ns: float, netlist_json: Path, modules: dict[str, Module], top: str,
             outputs: dict[str, set[str]]) -> list[Stage]:
    """The annotated stages of the worst path; [] when the report has none."""
    stages = parse_stages(path_report, tu_ns)
    if not stages:
        return []
    try:
        raw = json.loads(netlist_json.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return stages
    return annotate(stages, modules, as_items(raw), top, outputs)


def reannotate(stages: list[Stage], netlist_json: Path, modules: dict[str, Module], top: str,
               outputs: dict[str, set[str]]) -> list[Stage]:
    """``stages`` of a path timed on an identical netlist (another RTL that mapped to it), named again from
    this design's own netlist JSON: the RTL names and lines are this design's, whichever design was timed first."""
    bare = [Stage(pin=s["pin"], cell=s["cell"], edge=s["edge"], incr_ns=s["incr_ns"], time_ns=s["time_ns"])
            for s in stages]
    try:
        raw = json.loads(netlist_json.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return bare
    return annotate(bare, modules, as_items(raw), top, outputs)


def endpoint(stages: list[Stage], last: bool) -> str:
    """``s[6] (acc.v:9)`` for the path's start (``last=False``) or end, "" when unknown."""
    named = [s for s in stages if s.get("signal") and not s.get("via")]
    if not named:
        return ""
    s = named[-1] if last else named[0]
    return f"{s['signal']} ({s['src']})" if s.get("src") else str(s["signal"])

