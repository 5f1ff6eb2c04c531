"""The wide-operator fallback, so that every design gets a score within the synthesis timeout:
- a ``$div``/``$mod`` with an operand of ``ppa.wide_operator_bits`` bits or more is mapped by our restoring
  array divider (``div_array.v``) before ``alumacc`` instead of by Yosys' own map;
- a design with a ``$mul`` whose operands are both ``ppa.wide_multiplier_bits`` wide or wider is mapped by
  ABC's fast script (``abc -fast``) whatever the recipe's ``abc_script``.

Measured (Yosys 0.23, OSU018, the default recipe; CPU seconds, the machine loaded; docs/wide-operators.md):
a 32-bit `/` beside a `%` took 50 s in Yosys alone with its own map (13 min of wall time), 5.5 s with the
array divider; a 64x64 `*` under the default ABC script did not end in 900 s of wall time, under
``abc -fast`` it took 13 s. A 32x32 `*` takes 4 s and needs no fallback.

Whether a design has such a cell is known only once Yosys has elaborated it (widths follow parameters and
context), so the synthesis stage first runs a front-end pass (``detect_script``: read, elaborate, count) and
only for RTL with such an operator among its tokens (``operators``): every other design runs exactly the
script it always did, and the PPA cache keys it as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pyslang import BumpAllocator, Diagnostics, SourceManager
from pyslang.parsing import Lexer, TokenKind

FILE = "div_array.v"  # in this package, written under ``FOLDER`` in the stage folder
FOUND = "hh: wide $div/$mod cells for the fallback:"  # a marker line in the log, then ``select -count``'s
MUL_FOUND = "hh: wide $mul cells for the fallback:"
_COUNT = re.compile(r"^(\d+) objects\.$", re.M)
_DIVIDE = {TokenKind.Slash, TokenKind.SlashEqual, TokenKind.Percent, TokenKind.PercentEqual}
_NOT_AFTER = {TokenKind.At, TokenKind.OpenParenthesis}  # `@*`, `@(*)`, `(* attribute`: no product


@dataclass(frozen=True)
class Wide:
    """The thresholds the fallback applies at (None: that part off)."""

    div_bits: int | None = None
    mul_bits: int | None = None

    def __bool__(self) -> bool:
        return self.div_bits is not None or self.mul_bits is not None


def selection(bits: int) -> str:
    """The Yosys selection of the ``$div``/``$mod`` cells with an operand at least ``bits`` wide."""
    return f"t:$div t:$mod %u r:A_WIDTH>={bits} r:B_WIDTH>={bits} %u %i"


def mul_selection(bits: int) -> str:
    """The ``$mul`` cells whose operands are both at least ``bits`` wide."""
    return f"t:$mul r:A_WIDTH>={bits} %i r:B_WIDTH>={bits} %i"


def operators(texts: Iterable[str]) -> tuple[bool, bool]:
    """(some text divides, some text multiplies): a ``/``/``%`` operator token, a ``*`` that is no event
    control or attribute bracket (comments, strings and ``//`` are none)."""
    divide = multiply = False
    for text in texts:
        if "/" not in text and "%" not in text and "*" not in text:
            continue
        sm, alloc, diags = SourceManager(), BumpAllocator(), Diagnostics()
        clean = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")  # as hdl/tokens.py reads it
        lexer = Lexer(sm.assignText("<text>", clean), alloc, diags, sm)
        prev, star = TokenKind.EndOfFile, False  # star: the token before was a `*` that may be a product
        while (kind := lexer.lex().kind) != TokenKind.EndOfFile:
            multiply |= (star and kind != TokenKind.CloseParenthesis) or kind == TokenKind.StarEqual
            divide |= kind in _DIVIDE
            star, prev = kind == TokenKind.Star and prev not in _NOT_AFTER, kind
    return divide, multiply


def screen(texts: Iterable[str], wide: Wide) -> Wide:
    """The parts of ``wide`` the RTL may need (an operator of that kind among its tokens)."""
    if not wide:
        return wide
    divide, multiply = operators(texts)
    return Wide(wide.div_bits if divide else None, wide.mul_bits if multiply else None)


def count_lines(wide: Wide) -> list[str]:
    """The script lines that log how many cells each part may take (``count`` reads them back)."""
    out: list[str] = []
    if wide.div_bits is not None:
        out += [f"log {FOUND}", f"select -count {selection(wide.div_bits)}"]
    if wide.mul_bits is not None:
        out += [f"log {MUL_FOUND}", f"select -count {mul_selection(wide.mul_bits)}"]
    return out


def count(log: str, marker: str = FOUND) -> int | None:
    """The cells ``count_lines`` counted after ``marker`` in a Yosys log; None when it did not run."""
    _, found, after = log.partition(marker)
    hit = _COUNT.search(after) if found else None
    return int(hit.group(1)) if hit else None


def without_count(log: str) -> str:
    """The log without ``count_lines``' output (other passes' ``select -count`` are read from the rest)."""
    for marker in (FOUND, MUL_FOUND):
        head, found, after = log.partition(marker)
        log = head + _COUNT.sub("", after, count=1) if found else log
    return log


def detect_script(front: list[str], wide: Wide) -> str:
    """A front-end pass counting the cells the fallback would take: the synthesis script's own read and
    ``hierarchy`` lines (``front``), then elaboration and word-level simplification (``wreduce`` narrows what
    it can)."""
    return "\n".join([*front, "proc", "flatten", "opt_expr", "opt_clean", "opt", "wreduce", *count_lines(wide)]) + "\n"


def found(log: str, wide: Wide) -> Wide:
    """The parts of ``wide`` that found cells in ``detect_script``'s log."""
    return Wide(wide.div_bits if count(log, FOUND) else None, wide.mul_bits if count(log, MUL_FOUND) else None)
