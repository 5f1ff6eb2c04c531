"""Counterexamples from the solvers, as input values per cycle of the miter's ports.

ABC writes ``write_cex -n`` (``pi<k>@<frame>=<bit>`` lines) and Yosys' ``write_aiger -map`` tells
which port bit input ``k`` is; inputs named in ``init`` lines are the free start values of registers
the reset sequence leaves unset (Icarus starts those at X, so the replay does not use them).
Yosys SAT prints a ``-show-inputs`` table instead.
"""

from __future__ import annotations

import re

CEX_BIT = re.compile(r"^pi(\d+)@(\d+)=([01])\s*$", re.MULTILINE)
SAT_ROW = re.compile(r"^\s*(\d+|init)?\s*\\([A-Za-z_][A-Za-z0-9_$]*)\s+(-?\d+|--)\s+([0-9a-fA-Fx-]+)\s+([01xz-]+)\s*$",
                     re.MULTILINE)

Frames = list[dict[str, int]]  # one {port: value} per cycle, frame 0 first


def aiger_inputs(map_text: str) -> dict[int, tuple[str, int]]:
    """AIGER input index -> (port, bit), for the miter's primary inputs only."""
    out: dict[int, tuple[str, int]] = {}
    for line in map_text.splitlines():
        f = line.split()
        if len(f) == 4 and f[0] == "input":
            out[int(f[1])] = (f[3], int(f[2]))
    return out


def abc_frames(cex_text: str, inputs: dict[int, tuple[str, int]], ports: dict[str, int]) -> Frames:
    """Per frame, every port of ``ports`` (name -> width) with the bits the solver chose (others 0)."""
    frames: dict[int, dict[str, int]] = {}
    for idx, frame, bit in CEX_BIT.findall(cex_text):
        f = frames.setdefault(int(frame), {p: 0 for p in ports})
        port = inputs.get(int(idx))
        if port and port[0] in ports and bit == "1":
            f[port[0]] |= 1 << port[1]
    return [frames[k] for k in sorted(frames)]


def sat_frames(text: str, ports: dict[str, int]) -> Frames:
    """Yosys ``sat -show-inputs`` rows (steps from 1; no step column when combinational)."""
    frames: dict[int, dict[str, int]] = {}
    for step, name, _dec, _hex, binv in SAT_ROW.findall(text):
        if step == "init" or name not in ports:
            continue
        f = frames.setdefault(int(step or "1") - 1, {p: 0 for p in ports})
        f[name] = int(binv.replace("x", "0").replace("z", "0").replace("-", "0"), 2)
    return [frames[k] for k in sorted(frames)]


def hexv(value: int) -> str:
    return format(value, "x")
