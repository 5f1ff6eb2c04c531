"""Shared start values for registers the reset sequence leaves unset, on the AIGER path.

A register without an init value starts free (X in Icarus). Free values drawn independently on the two
sides make a pipeline's operand registers differ in the proof even when the reference is compared
with itself, and they stop ABC from merging the two sides' logic. So a candidate register and the
golden register of the same name and width get one shared free value in the first cycle
(``$initstate ? shared : register`` on both). This stays sound: every candidate start value is still
covered (the golden's start value is chosen equal to it, and where Icarus shows the golden defined,
its value does not depend on the start value), so a proof still holds for every start of the candidate.
"""

from __future__ import annotations

import re

FF_TYPES = {"$dff", "$dffe", "$sdff", "$sdffe", "$sdffce", "$adff", "$adffe", "$aldff", "$aldffe", "$dffsr",
            "$dffsre", "$ff"}
WIRE = re.compile(r"^\s*wire((?: (?:width|offset|input|output|inout) \d+| signed| upto)*) (\S+)\s*$")
WIDTH = re.compile(r"width (\d+)")
SIDE = re.compile(r"^\\hh_(gold|gate)\.(\S+)$")


def _uninitialised(lines: list[str], top: tuple[int, int]) -> dict[str, int]:
    """Wire name -> width, for wires of the top module without an init attribute."""
    out: dict[str, int] = {}
    has_init = False
    for line in lines[top[0]:top[1]]:
        s = line.strip()
        if s.startswith("attribute \\init "):
            has_init = True
            continue
        m = WIRE.match(line)
        if m:
            if not has_init:
                w = WIDTH.search(m.group(1))
                out[m.group(2)] = int(w.group(1)) if w else 1
            has_init = False
        elif not s.startswith("attribute "):
            has_init = False
    return out


def _top(lines: list[str]) -> tuple[int, int]:
    start = next(i for i, ln in enumerate(lines) if ln.strip() == "module \\hh_miter")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].strip() == "end" and not lines[i].startswith(" "))
    return start, end


def tie_inits(rtlil: str) -> tuple[str, int]:
    """(RTLIL with matching uninitialised registers sharing their first-cycle value, pairs tied)."""
    lines = rtlil.splitlines()
    top = _top(lines)
    free = _uninitialised(lines, top)
    # async2sync puts a mux between an async-reset register and its named wire: name the register by it
    alias: dict[str, str] = {}
    cell, ports = "", dict[str, str]()
    for i in range(*top):
        s = lines[i].strip()
        if s.startswith("cell "):
            cell, ports = s.split()[2], {}
        elif s.startswith("connect \\") and cell:
            parts = s.split(None, 2)
            ports[parts[1]] = parts[2] if len(parts) > 2 else ""
        elif s == "end" and "async2sync" in cell and SIDE.match(ports.get("\\Y", "")):
            for port in ("\\A", "\\B"):
                if "async2sync" in ports.get(port, ""):
                    alias[ports[port]] = ports["\\Y"]
    q_line: dict[str, tuple[int, str]] = {}  # register name -> (line of its flip-flop's Q, the Q wire)
    cell = ""
    for i in range(*top):
        s = lines[i].strip()
        if s.startswith("cell "):
            cell = s.split()[1]
        elif s == "end":
            cell = ""
        elif cell in FF_TYPES and s.startswith("connect \\Q "):
            wire = s.split(None, 2)[2]
            name = alias.get(wire, wire)
            if SIDE.match(name) and wire in free:
                q_line[name] = (i, wire)
    pairs = []
    for wire in q_line:
        side, name = SIDE.match(wire).groups()  # type: ignore[union-attr]
        other = f"\\hh_gate.{name}"
        if side == "gold" and other in q_line and free[q_line[other][1]] == free[q_line[wire][1]]:
            pairs.append((wire, other, free[q_line[wire][1]]))
    if not pairs:
        return rtlil, 0
    wires: list[str] = ["  wire \\hh_tie_first"]  # declared before the flip-flops that now drive them
    cells: list[str] = ["  cell $initstate \\hh_tie_initstate", "    connect \\Y \\hh_tie_first", "  end"]
    for k, (gold, gate, width) in enumerate(pairs):
        wires.append(f"  wire width {width} \\hh_tie_value{k}")
        cells += [f"  cell $anyseq \\hh_tie_any{k}", f"    parameter \\WIDTH {width}",
                  f"    connect \\Y \\hh_tie_value{k}", "  end"]
        for tag, name in (("g", gold), ("d", gate)):
            raw = f"\\hh_tie_raw{tag}{k}"
            at, wire = q_line[name]
            lines[at] = lines[at].replace(f"connect \\Q {wire}", f"connect \\Q {raw}")
            # the register's own start value is never seen (the mux shows the shared one): 0 on both
            # sides, so ABC's induction (scorr) finds the two registers equal from the start
            wires += [f"  attribute \\init {width}'{'0' * width}", f"  wire width {width} {raw}"]
            cells += [f"  cell $mux \\hh_tie_mux{tag}{k}", f"    parameter \\WIDTH {width}", f"    connect \\A {raw}",
                      f"    connect \\B \\hh_tie_value{k}", "    connect \\S \\hh_tie_first",
                      f"    connect \\Y {wire}", "  end"]
    lines[top[1]:top[1]] = cells
    lines[top[0] + 1:top[0] + 1] = wires
    return "\n".join(lines) + "\n", len(pairs)
