"""A streaming VCD reader that counts rising and falling transitions per bit.

Only 0->1 and 1->0 count; a change from or to X/Z updates the state without counting. The initial
values (``$dumpvars``) set the state without counting either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import ToolError

_RANGE = re.compile(r"^\[(-?\d+)(?::(-?\d+))?\]$")


@dataclass
class Toggles:
    """``counts[name] = [rises, falls]`` for every bit of the wanted scopes; names are relative paths."""

    counts: dict[str, list[int]] = field(default_factory=dict)
    end_time: int = 0


def _bit_names(ref: str, rng: str | None, width: int) -> list[str]:
    """Bit names msb first: ``a [3:0]`` -> a[3]..a[0]; an escaped ``\\a[3]`` stays ``a[3]``."""
    name = ref[1:] if ref.startswith("\\") else ref
    if width == 1 and rng is None:
        return [name]
    m = _RANGE.match(rng or "")
    if m is None:
        return [f"{name}[{i}]" for i in range(width - 1, -1, -1)]
    msb = int(m.group(1))
    lsb = int(m.group(2)) if m.group(2) is not None else msb
    step = -1 if msb >= lsb else 1
    return [f"{name}[{i}]" for i in range(msb, lsb + step, step)]


def _pad(value: str, width: int) -> str:
    if len(value) >= width:
        return value[-width:]
    fill = value[0] if value[0] in "xXzZ" else "0"
    return fill * (width - len(value)) + value


def count_toggles(text: str, scope: str, skip: set[str], where: str = "VCD") -> Toggles:
    """Transitions of every bit declared under ``scope`` (a dotted path such as ``tb.dut``), except
    in sub-scopes whose relative path is in ``skip`` (e.g. standard-cell instances)."""
    want = scope.split(".")
    stack: list[str] = []
    ids: dict[str, list[list[str]]] = {}  # id code -> bit-name lists (aliases share an id)
    width_of: dict[str, int] = {}
    state: dict[str, str] = {}
    out = Toggles()
    in_header = True
    for line in text.splitlines():
        if in_header:
            tok = line.split()
            if not tok:
                continue
            if tok[0] == "$scope" and len(tok) >= 3:
                stack.append(tok[2])
            elif tok[0] == "$upscope":
                if stack:
                    stack.pop()
            elif tok[0] == "$var" and len(tok) >= 5:
                if stack[: len(want)] != want:
                    continue
                rel = ".".join(stack[len(want):])
                if rel and any(rel == s or rel.startswith(s + ".") for s in skip):
                    continue
                width, code, ref = int(tok[2]), tok[3], tok[4]
                rng = tok[5] if len(tok) > 5 and tok[5].startswith("[") else None
                names = [f"{rel}.{b}" if rel else b for b in _bit_names(ref, rng, width)]
                ids.setdefault(code, []).append(names)
                width_of[code] = width
                for n in names:
                    out.counts.setdefault(n, [0, 0])
            elif tok[0] == "$enddefinitions":
                in_header = False
            continue
        c = line[:1]
        if c == "#":
            try:
                out.end_time = int(line[1:])
            except ValueError:
                pass
            continue
        if c == "$":
            continue  # $dumpvars / $end / $comment around value changes
        if c in "bB":
            parts = line[1:].split()
            if len(parts) != 2:
                continue
            value, code = parts
        elif c in "01xXzZ":
            value, code = c, line[1:].strip()
        else:
            continue  # real values, blank lines
        if code not in ids:
            continue
        value = _pad(value.lower(), width_of[code])
        old = state.get(code)
        state[code] = value
        if old is None:  # the initial value
            continue
        for i, (a, b) in enumerate(zip(old, value, strict=True)):  # both padded to the width
            if a == b:
                continue
            kind = 0 if (a, b) == ("0", "1") else 1 if (a, b) == ("1", "0") else -1
            if kind < 0:
                continue
            for names in ids[code]:
                out.counts[names[i]][kind] += 1
    if in_header:
        raise ToolError(f"{where} is truncated (no $enddefinitions)")
    return out
