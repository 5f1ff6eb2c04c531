"""The result sections of a run's page: best vs initial PPA, the RTL diff, tools and reproduction."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from html import escape
from typing import Any

from ..jsonio import as_dict, as_list, num, text
from .diff import diff_html
from .fmt import MISSING, change_pct, fcost, fnum, pct, power, seconds, with_unit
from .page import kv_table, not_recorded, pre, section, table
from .run_sections import merged
from .rundata import RunData

MAX_COMMAND_LINES = 400

# key, label, formatter, "higher is better"
PPA_ROWS: tuple[tuple[str, str, Callable[[Any], str], bool], ...] = (
    ("cost", "cost (weighted, 1 = initial)", fcost, False),
    ("area_um2", "area", lambda v: with_unit(v, "µm²"), False),
    ("cells", "cells", fnum, False),
    ("delay_ns", "critical-path delay", lambda v: with_unit(v, "ns"), False),
    ("slack_ns", "slack", lambda v: with_unit(v, "ns"), True),
    ("fmax_mhz", "fmax", lambda v: with_unit(v, "MHz"), True),
    ("power_mw", "total power", power, False),
    ("dynamic_mw", "dynamic power", power, False),
    ("leakage_mw", "leakage power", power, False),
)


def _proof(d: Mapping[str, object]) -> str:
    """The verdict that admitted the design; anything short of a proof is marked."""
    kind = text(d.get("proof")) or "not checked"
    return kind if kind == "proven" else f"{kind} ⚠"


def _evidence(rd: RunData, d: Mapping[str, object]) -> str:
    """Proven / bounded / simulated only against the reference (the chain of checks; see ``record.summary``)."""
    ps = rd.summary.proofs
    kind = ps.evidence_of(text(d.get("digest"))) if ps is not None and d else None
    return MISSING if kind is None else kind if kind == "proven" else f"{kind} ⚠"


def _yes_no(v: object) -> str:
    return "yes" if v is True else "no" if v is False else MISSING


def _path(d: Mapping[str, object]) -> str:
    cp = as_dict(d.get("critical_path"))
    if cp.get("rtl_start") or cp.get("rtl_end"):  # signals and file:line (runs since the report gained them)
        return f"{text(cp.get('rtl_start')) or MISSING} → {text(cp.get('rtl_end')) or MISSING}"
    return f"{text(cp.get('start'))} → {text(cp.get('end'))}" if cp else MISSING


def ppa_table(rd: RunData) -> str:
    ini, best = merged(rd, "initial"), merged(rd, "best")
    if not ini and not best:
        return section("Best vs initial design", not_recorded("PPA of the initial and best designs"), anchor="ppa")
    rows = []
    for key, label, show, higher in PPA_ROWS:
        if num(ini.get(key)) is None and num(best.get(key)) is None:
            continue
        ch = change_pct(ini.get(key), best.get(key))
        better = ch is not None and round(ch, 1) != 0 and (ch > 0) == higher
        cls = "good" if better else "bad" if ch is not None and round(ch, 1) != 0 else "muted"
        rows.append([escape(label), escape(show(ini.get(key))), escape(show(best.get(key))),
                     f'<span class="{cls}">{escape(pct(ch))}</span>' if ch is not None else "—"])
    extra = (("meets timing", _yes_no(ini.get("met_timing")), _yes_no(best.get("met_timing"))),
             ("critical path", _path(ini), _path(best)),
             ("power estimate", text(ini.get("power_fidelity")) or MISSING,
              text(best.get("power_fidelity")) or MISSING),
             ("equivalence check", _proof(ini), _proof(best)),
             ("evidence vs reference", _evidence(rd, ini), _evidence(rd, best)))
    rows += [[escape(a), escape(b), escape(c), ""] for a, b, c in extra]
    parts = [table(["metric", "initial", "best", "change"], rows, [False, True, True, True], raw=True),
             '<p class="muted">Cost = weighted mean of area/area₀, delay/delay₀ and power/power₀ plus a penalty '
             "for missing the clock period; the initial design (the first valid Phase-1 candidate, default recipe) "
             "scores 1. Delay is the worst path from OpenSTA; power is OpenSTA's estimate at the stated fidelity."
             "</p>"]
    ids = [(w, d) for w, d in (("initial", ini), ("best", best)) if d.get("key") or d.get("digest")]
    if ids:
        parts.append(kv_table([(f"{w} state",
                                f"<code>{escape(text(d.get('key')) or text(d.get('digest'))[:16])}</code> "
                                + escape(text(d.get("label")) or text(d.get("move")) or "")) for w, d in ids],
                              raw=True))
    hist_i, hist_b = as_dict(ini.get("cell_histogram")), as_dict(best.get("cell_histogram"))
    if hist_i or hist_b:
        cells = sorted(set(hist_i) | set(hist_b))
        rows2 = [[escape(c), fnum(hist_i.get(c), missing="0"), fnum(hist_b.get(c), missing="0")] for c in cells]
        parts.append("<details><summary>Cell histogram</summary>" +
                     table(["cell", "initial", "best"], rows2, [False, True, True], raw=True) + "</details>")
    return section("Best vs initial design", *parts, anchor="ppa")


def rtl_diff(rd: RunData) -> str:
    parts = []
    if rd.initial_recipe is not None and rd.best_recipe is not None:
        parts.append("<h3>Synthesis recipe (initial/recipe.yaml → best/recipe.yaml)</h3>" + diff_html(
            rd.initial_recipe, rd.best_recipe, "initial/recipe.yaml", "best/recipe.yaml", what="recipe"))
    if rd.initial_rtl is None or rd.best_rtl is None:
        parts.append(not_recorded("initial/design.v or best/design.v"))
    else:
        parts.append("<h3>RTL (initial/design.v → best/design.v)</h3>" +
                     diff_html(rd.initial_rtl, rd.best_rtl, "initial/design.v", "best/design.v", what="RTL"))
        parts.append("<details><summary>Best RTL (full text)</summary>" + pre(rd.best_rtl) + "</details>")
    return section("Best vs initial: RTL and recipe diff", *parts, anchor="rtl")


def _tools(rd: RunData) -> list[list[str]]:
    tools = rd.summary.tools or as_dict(rd.manifest.get("tools"))
    rows = []
    for name, info in sorted(tools.items()):
        if isinstance(info, dict):
            version = text(info.get("version")) or text(info.get("error")) or MISSING
            rows.append([str(name), " ".join(version.split())[:160], text(info.get("path"))])
        else:
            rows.append([str(name), text(info), ""])
    return rows


def _commands(rd: RunData) -> list[str]:
    cmds = list(rd.summary.reproduce)
    argv = [text(a) for a in as_list(rd.manifest.get("argv"))]
    if argv:
        cmds = [f"# this run was started with:\n{shlex.join(argv)}"] + (["# reproduce:"] + cmds if cmds else [])
    return cmds


def reproduce(rd: RunData) -> str:
    cmds = _commands(rd)
    parts = ["<h3>Commands</h3>" + (pre("\n".join(cmds)) if cmds else not_recorded("Reproduce commands"))]
    tools = _tools(rd)
    parts.append("<h3>Tool versions</h3>" + (table(["tool", "version", "path"], tools) if tools
                                              else not_recorded("Tool versions")))
    m = rd.manifest
    facts = [(k, text(m.get(k))) for k in ("hyperheurist", "git_revision", "python", "platform", "liberty", "created")
             if m.get(k) is not None]
    if rd.summary.wall_s is not None:
        facts.append(("wall time", seconds(rd.summary.wall_s)))
    llm = rd.summary.llm
    facts += [(f"LLM {k}", text(v) if not isinstance(v, dict) else ", ".join(f"{a}={b}" for a, b in v.items()))
              for k, v in llm.items() if k not in ("profile", "failures")]
    if facts:
        parts.append("<h3>Environment</h3>" + kv_table(facts))
    parts += _llm_details(llm)
    if rd.commands:
        lines = rd.commands.splitlines()
        shown = "\n".join(lines[:MAX_COMMAND_LINES])
        more = f" (first {MAX_COMMAND_LINES} of {len(lines)} lines)" if len(lines) > MAX_COMMAND_LINES else ""
        parts.append(f"<details><summary>Every tool command of this run ({len(lines)} lines of COMMANDS{escape(more)})"
                     f"</summary>{pre(shown)}</details>")
    else:
        parts.append(not_recorded("COMMANDS"))
    return section("Tools and reproduction", *parts, anchor="reproduce")


def _llm_details(llm: Mapping[str, object]) -> list[str]:
    """The LLM's failed requests in the server's own words, and the model profile the run used."""
    out = []
    failures = [as_dict(f) for f in as_list(llm.get("failures"))]
    if failures:
        out.append("<h3>LLM failures (server messages)</h3>"
                   + table(["phase", "error"], [(text(f.get("phase")), text(f.get("error"))) for f in failures]))
    profile = as_dict(llm.get("profile"))
    if profile:
        rows = [(k, text(v)) for k, v in profile.items() if k not in ("learned", "endpoint", "model")]
        rows += [(f"learned: {as_dict(x).get('what')}", text(as_dict(x).get("server")))
                 for x in as_list(profile.get("learned"))]
        out.append("<h3>LLM model profile</h3>" + kv_table(rows))
    return out
