"""Seeded stimulus for differential and random-stimulus testbenches (shared with PPA power runs).

Corner cases first (all zeros, all ones, one-hot, alternating bits, per-port extremes), then random
vectors biased towards boundary values, where off-by-one and overflow bugs live. Pure Python and
deterministic: the same (ports, cycles, seed) always gives the same vectors.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class StimPort:
    name: str
    width: int


def _special(width: int) -> list[int]:
    mask = (1 << width) - 1
    vals = [0, 1, mask, mask - 1, 1 << (width - 1), (1 << (width - 1)) - 1,
            0x5555555555555555 & mask, 0xAAAAAAAAAAAAAAAA & mask]
    return [v & mask for v in vals]


def vectors(ports: list[StimPort], cycles: int, seed: int) -> list[dict[str, int]]:
    """One {port: value} per cycle."""
    rng = random.Random(seed)
    out: list[dict[str, int]] = []
    corners = [{p.name: 0 for p in ports}, {p.name: (1 << p.width) - 1 for p in ports}]
    for k in range(8):
        corners.append({p.name: _special(p.width)[k] for p in ports})
    for p in ports:  # one port at an extreme while the others are random
        for v in (_special(p.width)[2], _special(p.width)[4]):
            corners.append({q.name: (v if q is p else rng.getrandbits(q.width)) for q in ports})
    for vec in corners[:cycles]:
        out.append(vec)
    while len(out) < cycles:
        vec = {}
        for p in ports:
            if rng.random() < 0.25:
                vec[p.name] = rng.choice(_special(p.width))
            else:
                vec[p.name] = rng.getrandbits(p.width)
        out.append(vec)
    return out


def reset_schedule(cycles: int, seed: int, hold: int = 1) -> list[bool]:
    """Reset asserted for the first ``2 * hold`` cycles and for ``hold`` cycles once more mid-run (reset from
    a live state); ``hold`` > 1 lets a reset of a slower clock domain see an edge of its clock."""
    rng = random.Random(seed ^ 0x5EED)
    sched = [k < 2 * hold for k in range(cycles)]
    if cycles > 8:
        k = rng.randrange(cycles // 3, max(cycles // 3 + 1, 2 * cycles // 3))
        for j in range(k, min(cycles, k + hold)):
            sched[j] = True
    return sched


def hex_text(values: list[int], width: int) -> str:
    """A $readmemh file's text, one value per line."""
    digits = max(1, (width + 3) // 4)
    return "".join(f"{v:0{digits}x}\n" for v in values)
