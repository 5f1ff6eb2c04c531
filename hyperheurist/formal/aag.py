"""ASCII AIGER (``write_aiger -ascii -map``) read back, and simulated many runs at once.

Yosys writes a harness as an and-inverter graph with latches (``-zinit``: every latch starts at 0; a flop
without an initial value gets an input instead, free in the first cycle). ``simulate`` runs ``lanes``
independent runs in parallel, one bit of a Python integer per run, for a number of cycles with random
inputs, and gives each observed output bit its *signature*: its values over every lane and sampled cycle.
Two bits with one signature never differed in any run; a signature of all 0s or all 1s never changed.
This is evidence, not proof: it only picks the claims worth sending to induction (``formal.invariants``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

MAX_NODES = 200_000  # and gates + latches simulated at all
WORK = 1_000_000  # gate evaluations per lane word: the number of cycles follows from the graph's size


@dataclass(frozen=True)
class Aig:
    """An ASCII AIGER: inputs (literals), latches (literal, next, init: 0, 1 or None for free), outputs
    (literals) and and gates (lhs, rhs0, rhs1) in the file's order."""

    inputs: tuple[int, ...]
    latches: tuple[tuple[int, int, int | None], ...]
    outputs: tuple[int, ...]
    ands: tuple[tuple[int, int, int], ...]


def parse_aag(text: str) -> Aig | None:
    """The graph, or None when the text is not an ASCII AIGER whose gates come in topological order."""
    lines = text.splitlines()
    head = lines[0].split() if lines else []
    if len(head) < 6 or head[0] != "aag" or not all(x.isdigit() for x in head[1:6]):
        return None
    n_in, n_lat, n_out, n_and = (int(x) for x in head[2:6])
    body = lines[1:1 + n_in + n_lat + n_out + n_and]
    if len(body) != n_in + n_lat + n_out + n_and:
        return None
    try:
        rows = [[int(x) for x in line.split()] for line in body]
    except ValueError:
        return None
    inputs = tuple(r[0] for r in rows[:n_in])
    latches = tuple((r[0], r[1], None if len(r) > 2 and r[2] == r[0] else (r[2] if len(r) > 2 else 0))
                    for r in rows[n_in:n_in + n_lat])
    outputs = tuple(r[0] for r in rows[n_in + n_lat:n_in + n_lat + n_out])
    ands = tuple((r[0], r[1], r[2]) for r in rows[n_in + n_lat + n_out:])
    defined = {0} | {lit >> 1 for lit in inputs} | {lat[0] >> 1 for lat in latches}
    for lhs, a, b in ands:
        if a >> 1 not in defined or b >> 1 not in defined:
            return None  # not in topological order: not what Yosys writes
        defined.add(lhs >> 1)
    return Aig(inputs, latches, outputs, ands)


def parse_map(aim: str) -> tuple[dict[int, tuple[str, int]], dict[tuple[str, int], int]]:
    """From a ``-map`` file: input number -> (name, bit), and (name, bit) -> output number."""
    ins: dict[int, tuple[str, int]] = {}
    outs: dict[tuple[str, int], int] = {}
    for line in aim.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[1].isdigit() and parts[2].isdigit():
            if parts[0] == "input":
                ins[int(parts[1])] = (parts[3], int(parts[2]))
            elif parts[0] == "output":
                outs[(parts[3], int(parts[2]))] = int(parts[1])
    return ins, outs


Drive = Callable[[int, int], int | None]  # (input number, cycle) -> the lanes' values, None: random


def cycles_for(aig: Aig, low: int = 64, high: int = 1024) -> int:
    """How many cycles to simulate: more for a small graph, within [low, high]."""
    return max(low, min(high, WORK // max(1, len(aig.ands) + len(aig.latches))))


@dataclass(frozen=True)
class Run:
    """Per output: its signature (the values of its lanes at every sampled cycle, one word per cycle, the
    last cycle lowest) and the first sampled cycle at which it differed from its first value in some lane
    (None: it never did)."""

    signatures: list[int]
    first_change: list[int | None]
    samples: int  # sampled cycles


def simulate(aig: Aig, drive: Drive, cycles: int, skip: int, lanes: int = 64, seed: int = 0) -> Run | None:
    """Each output's history over cycles ``skip`` .. ``cycles - 1`` (None: the graph is too large). Inputs
    ``drive`` leaves open are random, with a lane-dependent bias (a third of the lanes mostly 1, a third
    mostly 0) so that enables and rare events both occur."""
    if len(aig.ands) + len(aig.latches) > MAX_NODES:
        return None
    rng = random.Random(seed)
    mask = (1 << lanes) - 1
    third = lanes // 3
    high_lanes = (1 << third) - 1
    low_lanes = high_lanes << third
    val = [0] * (1 + max([0, *(lit >> 1 for lit in aig.inputs), *(lat[0] >> 1 for lat in aig.latches),
                          *(g[0] >> 1 for g in aig.ands)]))

    def lit(x: int) -> int:
        return val[x >> 1] ^ (mask if x & 1 else 0)

    gates = [(lhs >> 1, a >> 1, mask if a & 1 else 0, b >> 1, mask if b & 1 else 0) for lhs, a, b in aig.ands]
    for var, _, init in aig.latches:
        val[var >> 1] = rng.getrandbits(lanes) if init is None else (mask if init else 0)
    sigs = [0] * len(aig.outputs)
    first: list[int | None] = [None] * len(aig.outputs)
    start = [0] * len(aig.outputs)
    for t in range(cycles):
        for k, var in enumerate(aig.inputs):
            fixed = drive(k, t)
            if fixed is None:
                a, b, c = rng.getrandbits(lanes), rng.getrandbits(lanes), rng.getrandbits(lanes)
                fixed = (a & ~(high_lanes | low_lanes)) | ((a | b | c) & high_lanes) | ((a & b & c) & low_lanes)
            val[var >> 1] = fixed & mask
        for v, x, xn, y, yn in gates:  # the hot loop: no call per gate
            val[v] = (val[x] ^ xn) & (val[y] ^ yn)
        if t >= skip:
            for k, o in enumerate(aig.outputs):
                w = lit(o)
                sigs[k] = (sigs[k] << lanes) | w
                if t == skip:
                    start[k] = w
                    if w not in (0, mask):
                        first[k] = 0
                elif first[k] is None and w != start[k]:
                    first[k] = t - skip
        nxt = [lit(n) for _, n, _ in aig.latches]
        for (var, _, _), v in zip(aig.latches, nxt, strict=True):
            val[var >> 1] = v
    return Run(sigs, first, max(0, cycles - skip))
