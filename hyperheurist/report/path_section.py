"""The best design's critical path in RTL terms: each stage with its delay, arrival, signal and source line.

The stages come from the PPA record (``details.critical_path_stages``, written by the STA stage from
OpenSTA's ``report_checks`` and the netlist's Yosys ``src`` attributes; see ``ppa.critical_path``).
A stage marked ``→ sig`` is combinational logic ABC mapped without a name: the signal is the next
named one its path reaches.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from ..jsonio import as_dict, as_list, num, text
from .fmt import MISSING, with_unit
from .page import not_recorded, section, table
from .run_sections import merged
from .rundata import RunData


def _rows(stages: Sequence[Mapping[str, object]]) -> list[list[str]]:
    rows = []
    for s in stages:
        incr, at = num(s.get("incr_ns")), num(s.get("time_ns"))
        sig = text(s.get("signal"))
        sig_html = f'<span class="muted">{escape(sig)}</span>' if s.get("via") else f"<b>{escape(sig)}</b>"
        rows.append([f"{incr:.3f}" if incr is not None else MISSING, f"{at:.3f}" if at is not None else MISSING,
                     "↑" if s.get("edge") == "rise" else "↓",
                     f"<code>{escape(text(s.get('pin')))}</code> {escape(text(s.get('cell')))}",
                     sig_html if sig else MISSING, f"<code>{escape(text(s.get('src')))}</code>" if s.get("src")
                     else MISSING])
    return rows


def critical_path(rd: RunData) -> str:
    """A table like OpenSTA's path report, one row per pin, with the RTL signal and file:line."""
    best = merged(rd, "best")
    if not best:
        return ""
    stages = [as_dict(s) for s in as_list(as_dict(best.get("details")).get("critical_path_stages"))]
    cp = as_dict(best.get("critical_path"))
    if not stages:
        return section("Critical path of the best design", not_recorded(
            "the stage-by-stage path (recorded by runs since the report gained it)"), anchor="path")
    head = (f"<p>From <b>{escape(text(cp.get('rtl_start')) or text(cp.get('start')) or MISSING)}</b> to "
            f"<b>{escape(text(cp.get('rtl_end')) or text(cp.get('end')) or MISSING)}</b>: "
            f"delay {escape(with_unit(best.get('delay_ns'), 'ns'))}, slack "
            f"{escape(with_unit(best.get('slack_ns'), 'ns'))} at a "
            f"{escape(with_unit(best.get('clock_period_ns'), 'ns'))} clock "
            f"({'met' if best.get('met_timing') is not False else 'VIOLATED'}).</p>")
    note = ('<p class="muted">incr = the stage\'s delay, at = arrival time (ns, OpenSTA, max path). Signal and '
            "source line come from Yosys' <code>src</code> attributes in the netlist; a grey “→ sig” is logic "
            "ABC mapped without a name, on its way to that signal.</p>")
    tbl = table(["incr", "at", "", "pin (cell)", "signal", "source"], _rows(stages),
                [True, True, False, False, False, False], raw=True)
    return section("Critical path of the best design", head, tbl, note, anchor="path")
