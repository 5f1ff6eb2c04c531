"""The library's own adder cells for the ``adder_cells`` knob.

A full adder cell (three inputs; one output the majority, one the XOR of all three) and a half adder cell
(two inputs; AND and XOR) are found by the truth tables of their Liberty pin functions, so any library
that has them serves (OSU018: FAX1, 120 um2, against about 175 um2 for the gates ABC maps a full adder
to; HAX1). ``map_text`` is the Yosys techmap that puts them in place of the ``$fa`` cells ``extract_fa``
finds in the gate-level logic: a ``$fa`` whose carry input is the constant 0 becomes the half adder
(or stays ``$fa`` for Yosys' generic map when the library has none). ABC then maps what is left around
them: the cells are boundaries it cannot optimise across, which is the trade the search weighs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .liberty import Cell, Liberty

FILE = "adder_cells.v"  # in the synthesis stage's techmap folder
_TOKEN = re.compile(r"\s*([A-Za-z_][\w\[\]]*|[01]|[()!'^*&+|])")


@dataclass(frozen=True)
class AdderCell:
    name: str
    inputs: tuple[str, ...]  # the operands (a full adder's are interchangeable, as are a half adder's)
    carry: str
    sum: str


@dataclass(frozen=True)
class AdderCells:
    full: AdderCell
    half: AdderCell | None


class _Parser:
    """Liberty's boolean functions over up to a few pins, as truth tables (bit i: the value when pin k is
    bit k of i). Precedence, tightest first: ``!``/postfix ``'``, ``^``, AND (``*``, ``&``, juxtaposition),
    OR (``+``, ``|``), as in OpenSTA's reader."""

    def __init__(self, text: str, pins: tuple[str, ...]) -> None:
        self.toks: list[str] = []
        pos, text = 0, text.strip().strip('"')
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None:
                if text[pos:].strip():
                    raise ValueError(f"unexpected {text[pos:]!r}")
                break
            self.toks.append(m.group(1))
            pos = m.end()
        self.i = 0
        n = 1 << len(pins)
        self.full = (1 << n) - 1
        self.vars = {p: sum(1 << i for i in range(n) if i >> k & 1) for k, p in enumerate(pins)}

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> str:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def parse(self) -> int:
        value = self.or_()
        if self.peek() is not None:
            raise ValueError(f"unexpected {self.peek()!r}")
        return value

    def or_(self) -> int:
        value = self.and_()
        while self.peek() in ("+", "|"):
            self.take()
            value |= self.and_()
        return value

    def and_(self) -> int:
        value = self.xor()
        while self.peek() not in (None, ")", "+", "|"):  # xor() took every "^" and "'" before it
            if self.peek() in ("*", "&"):
                self.take()
            value &= self.xor()
        return value

    def xor(self) -> int:
        value = self.unary()
        while self.peek() == "^":
            self.take()
            value ^= self.unary()
        return value

    def unary(self) -> int:
        tok = self.take()
        if tok == "!":
            return self.full & ~self.unary()
        if tok == "(":
            value = self.or_()
            if self.take() != ")":
                raise ValueError("unbalanced parenthesis")
        elif tok in ("0", "1"):
            value = self.full if tok == "1" else 0
        elif tok in self.vars:
            value = self.vars[tok]
        else:
            raise ValueError(f"unknown pin {tok!r}")
        while self.peek() == "'":
            self.take()
            value = self.full & ~value
        return value


def truth_table(function: str, pins: tuple[str, ...]) -> int | None:
    """The function's truth table over ``pins``; None when it does not parse or names another pin."""
    try:
        return _Parser(function, pins).parse()
    except (ValueError, IndexError):
        return None


def _as_adder(cell: Cell, width: int) -> AdderCell | None:
    ins = tuple(sorted(p.name for p in cell.inputs()))
    outs = cell.outputs()
    if cell.sequential or len(ins) != width or len(outs) != 2:
        return None
    tables = {o.name: truth_table(o.function or "", ins) for o in outs}
    n = 1 << width
    xor = sum(1 << i for i in range(n) if bin(i).count("1") % 2)
    carry = sum(1 << i for i in range(n) if bin(i).count("1") * 2 > width)  # majority; AND for two inputs
    sums = [o for o, t in tables.items() if t == xor]
    carries = [o for o, t in tables.items() if t == carry]
    if len(sums) != 1 or len(carries) != 1:
        return None
    return AdderCell(cell.name, ins, carries[0], sums[0])


def _smallest(lib: Liberty, width: int) -> AdderCell | None:
    found = [(lib.cells[a.name].area, a.name, a) for a in (_as_adder(c, width) for c in lib.cells.values()) if a]
    return min(found)[2] if found else None


def find(lib: Liberty) -> AdderCells | None:
    """The smallest full adder cell and half adder cell of ``lib``; None without a full adder."""
    full = _smallest(lib, 3)
    return AdderCells(full, _smallest(lib, 2)) if full is not None else None


def _instance(cell: AdderCell, ins: tuple[str, ...], name: str) -> str:
    conns = [f".{p}({v}[i])" for p, v in zip(cell.inputs, ins, strict=True)]
    conns += [f".{cell.carry}(X[i])", f".{cell.sum}(Y[i])"]
    return f"{cell.name} {name} ({', '.join(conns)});"


def map_text(cells: AdderCells) -> str:
    """The techmap from Yosys' ``$fa`` (carry ``X``, sum ``Y``) to the library's cells, bit by bit."""
    full = _instance(cells.full, ("A", "B", "C"), "fa")
    if cells.half is not None:
        half = _instance(cells.half, ("A", "B"), "ha")
        body = (f"      if (_TECHMAP_CONSTMSK_C_[i] && !_TECHMAP_CONSTVAL_C_[i]) begin : half\n"
                f"        {half}\n      end else begin : full\n        {full}\n      end\n")
        fail = ""
    else:  # a half adder stays $fa: Yosys' generic map makes it of gates
        body = f"      {full}\n"
        fail = "  wire _TECHMAP_FAIL_ = |(_TECHMAP_CONSTMSK_C_ & ~_TECHMAP_CONSTVAL_C_);\n"
    return ("// hh: the library's adder cells in place of extract_fa's $fa cells (generated from the liberty)\n"
            '(* techmap_celltype = "$fa" *)\n'
            "module _hh_adder_cells (A, B, C, X, Y);\n"
            "  parameter WIDTH = 1;\n"
            "  parameter _TECHMAP_CONSTMSK_C_ = 0;\n"
            "  parameter _TECHMAP_CONSTVAL_C_ = 0;\n"
            "  input [WIDTH-1:0] A, B, C;\n"
            "  output [WIDTH-1:0] X, Y;\n"
            f"{fail}"
            "  genvar i;\n"
            "  generate\n"
            "    for (i = 0; i < WIDTH; i = i + 1) begin : g_bit\n"
            f"{body}"
            "    end\n"
            "  endgenerate\n"
            "endmodule\n")
