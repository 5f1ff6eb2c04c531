"""Our own Yosys techmap files, chosen by recipe knobs: a knob value maps some operator cells our way.

``TECHMAPS[knob][value]`` is where and how our files map: a pass of its own before ``alumacc`` (operators
as written: ``$mul``) offered only ``cells`` (a Yosys selection), or with Yosys' generic map (cells that
exist only once ``$alu`` is mapped: ``$lcu``; a map module whose name sorts before ``_90_`` wins). A value
not listed (the knob's default) leaves Yosys' own mapping. A pass of its own offers only the cells its map
should take: reading the files at all moves Yosys' automatic names on, and ABC's netlist with them.
The synthesis stage writes the files into its folder under ``FOLDER`` (the sandboxed Yosys reads them
like its script); the PPA cache keys on their content (``digest``, over ``ppa.synth.map_files``: these
and the adder-cell map made from the liberty), so editing one never serves an estimate made with the old one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ...recipe import KnobValue

HERE = Path(__file__).parent
FOLDER = "techmap"  # inside the synthesis stage folder


@dataclass(frozen=True)
class Techmap:
    files: tuple[str, ...]  # in this package, helpers first
    cells: str = ""  # the Yosys selection of the cells the pass may map (generic: counted, a fact)
    stage: Literal["before_alumacc", "generic"] = "before_alumacc"


def _mul_cells(signed_only: bool, min_width: int) -> str:
    """$mul cells with both operands at least ``min_width`` bits and neither all constant (the map files
    refuse those too: shift-add serves a constant better)."""
    sel = ["w:* %co1:+$mul[A] t:$mul %i", "w:* %co1:+$mul[B] %i"]
    if signed_only:
        sel.append("r:A_SIGNED=1 %i")
    sel.append(f"r:A_WIDTH>={min_width} %i r:B_WIDTH>={min_width} %i")
    return " ".join(sel)


# Thresholds from OSU018 figures (cost: the mean of the area, delay and vectorless power ratios to Yosys'
# own mapping, measured with `hh ppa` when the knob was added). Booth, signed: 4x4 1.11, 6x6 1.03, 8x8 1.03,
# 12x12 0.93, 16x16 0.94, 24x24 1.02, mac16 0.97 (area -14% to -27% from 6x6 on, delay +2-18%); from 6x6 it
# pays under the area flow's 2:0.5:1 weights (0.95-0.98), so the annealer may choose it there. Unsigned:
# 1.04-1.25 on plain data from 8x8 to 32x32 (a digit row more, +20-70% power) but 0.88 on mac16's
# ok_3_sext32, whose 32-bit unsigned operands are sign extensions (digits over copies of one bit are zero):
# telling those apart needs the operands' bit identities, so signed only for now.
# Wallace: 4x4 0.96 unsigned, 0.98 signed; wider its delay is 3-15% lower for more area and power (0.97-1.07
# signed, 1.01-1.17 unsigned; 0.93 at 16x16 under the timing flow's 2:0.5:0.5 weights).
TECHMAPS: dict[str, dict[str, Techmap]] = {
    "multiplier": {"booth": Techmap(("csa.v", "mul_booth.v"), _mul_cells(signed_only=True, min_width=6)),
                   "wallace": Techmap(("csa.v", "mul_wallace.v"), _mul_cells(signed_only=False, min_width=4))},
    # The carry tree of every $alu (adders, subtractors, compares), with Yosys' generic map: one-step cost
    # against its Brent-Kung (`_90_lcu`) over the benchmarks' seeds and references differs by design, and
    # every value wins somewhere (tests/test_lcu_techmap.py's figures, `hh ppa`): ripple adder32 0.92,
    # mac16 ok_1_naive 0.93; Kogge-Stone fir4 ok_2_preadd 0.98, mac16 ok_3_sext32 0.98; Han-Carlson /
    # Ladner-Fischer div16 ok_1_naive 0.975; designs without a wide $alu (crc32, fifo8) unchanged.
    "adder": {arch: Techmap((f"lcu_{arch}.v",), "t:$alu t:$macc", stage="generic")
              for arch in ("ripple", "kogge_stone", "sklansky", "han_carlson", "ladner_fischer")},
}


def passes(recipe: Mapping[str, KnobValue]) -> list[Techmap]:
    """The techmaps a recipe (its ``to_dict``) asks for, in ``TECHMAPS`` order."""
    out: list[Techmap] = []
    for knob, values in TECHMAPS.items():
        value = recipe.get(knob)
        if isinstance(value, str) and value in values:
            out.append(values[value])
    return out


def text(name: str) -> str:
    """Read on every use: a file edited mid-run is the file used (and keyed)."""
    return (HERE / name).read_text(encoding="utf-8")


def files(recipe: Mapping[str, KnobValue]) -> dict[str, str]:
    """The techmap files a recipe needs, by their path in the stage folder."""
    return {f"{FOLDER}/{n}": text(n) for p in passes(recipe) for n in p.files}


def digest(used: Mapping[str, str]) -> str | None:
    """A digest of the content of map files (path -> text, as ``files`` gives them); None for none."""
    if not used:
        return None
    return hashlib.sha256("\0".join(f"{n}\0{t}" for n, t in sorted(used.items())).encode()).hexdigest()
