"""Our own Yosys techmap files, chosen by recipe knobs: a knob value maps operator cells before ``alumacc``.

``TECHMAPS[knob][value]`` lists the files of one ``techmap`` pass (helpers first); a value not listed (the
knob's default) leaves Yosys' own mapping. The synthesis stage writes the files into its folder under
``FOLDER`` (so the sandboxed Yosys reads them like its script) and the PPA cache keys on their content
(``digest``): editing a file never serves an estimate made with the old one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from ...recipe import KnobValue

HERE = Path(__file__).parent
FOLDER = "techmap"  # inside the synthesis stage folder
TECHMAPS: dict[str, dict[str, tuple[str, ...]]] = {
    "multiplier": {"booth": ("csa.v", "mul_booth.v"), "wallace": ("csa.v", "mul_wallace.v")},
}


def passes(recipe: Mapping[str, KnobValue]) -> list[tuple[str, ...]]:
    """The file lists of the techmap passes a recipe (its ``to_dict``) asks for, in ``TECHMAPS`` order."""
    out: list[tuple[str, ...]] = []
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
    return {f"{FOLDER}/{n}": text(n) for p in passes(recipe) for n in p}


def digest(recipe: Mapping[str, KnobValue]) -> str | None:
    """A digest of the content of the techmap files a recipe uses; None when it uses none."""
    used = files(recipe)
    if not used:
        return None
    return hashlib.sha256("\0".join(f"{n}\0{t}" for n, t in sorted(used.items())).encode()).hexdigest()
