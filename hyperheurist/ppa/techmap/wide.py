"""The wide-operator fallback: a ``$div``/``$mod`` with an operand of ``ppa.wide_operator_bits`` bits or more is
mapped by our restoring array divider (``div_array.v``) before ``alumacc`` instead of by Yosys' own map, so that
every design gets a score within the synthesis timeout.

Measured (Yosys 0.23, OSU018, the default recipe, one process; CPU seconds, the machine loaded): a 32-bit `/`
beside a `%` of the same operands did not finish in 600 s with Yosys' map (its ``techmap`` and the ``opt`` after
it work on about three times the adder bits, see ``div_array.v``); with the array divider it takes 5.5 s.
Multipliers need no fallback: 32x32 takes 4.1 s (``docs/wide-operators.md`` has the figures).

Whether a design has such a cell is known only once Yosys has elaborated it (widths follow parameters and
context), so the synthesis stage first runs a front-end pass (``detect_script``: read, elaborate, count) and
only for RTL with a division or modulo operator among its tokens (``may_divide``): every other design runs
exactly the script it always did, and the PPA cache keys it as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pyslang import BumpAllocator, Diagnostics, SourceManager
from pyslang.parsing import Lexer, TokenKind

FILE = "div_array.v"  # in this package, written under ``FOLDER`` in the stage folder
FOUND = "hh: wide $div/$mod cells for the fallback:"  # a marker line in the log, then ``select -count``'s
_COUNT = re.compile(r"^(\d+) objects\.$", re.M)
_DIVIDE = {TokenKind.Slash, TokenKind.SlashEqual, TokenKind.Percent, TokenKind.PercentEqual}


def selection(bits: int) -> str:
    """The Yosys selection of the ``$div``/``$mod`` cells with an operand at least ``bits`` wide."""
    return f"t:$div t:$mod %u r:A_WIDTH>={bits} r:B_WIDTH>={bits} %u %i"


def may_divide(texts: Iterable[str]) -> bool:
    """Some text has a ``/`` or ``%`` operator token (comments, strings and ``//`` are none)."""
    for text in texts:
        if "/" not in text and "%" not in text:
            continue
        sm, alloc, diags = SourceManager(), BumpAllocator(), Diagnostics()
        clean = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")  # as hdl/tokens.py reads it
        lexer = Lexer(sm.assignText("<text>", clean), alloc, diags, sm)
        while (kind := lexer.lex().kind) != TokenKind.EndOfFile:
            if kind in _DIVIDE:
                return True
    return False


def count_line(bits: int) -> list[str]:
    """The script lines that log how many cells the fallback may take (``count`` reads them back)."""
    return [f"log {FOUND}", f"select -count {selection(bits)}"]


def count(log: str) -> int | None:
    """The cells ``count_line`` counted in a Yosys log; None when it did not run."""
    _, marker, after = log.partition(FOUND)
    found = _COUNT.search(after) if marker else None
    return int(found.group(1)) if found else None


def without_count(log: str) -> str:
    """The log without ``count_line``'s output (other passes' ``select -count`` are read from the rest)."""
    head, marker, after = log.partition(FOUND)
    return head + _COUNT.sub("", after, count=1) if marker else log


def detect_script(front: list[str], bits: int) -> str:
    """A front-end pass counting the cells the fallback would take: the synthesis script's own read and
    ``hierarchy`` lines (``front``), then elaboration and word-level simplification (``wreduce`` narrows what
    it can)."""
    return "\n".join([*front, "proc", "flatten", "opt_expr", "opt_clean", "opt", "wreduce", *count_line(bits)]) + "\n"
