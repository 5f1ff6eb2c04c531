"""``render_run``: the self-contained report.html of one run directory."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from pathlib import Path

from ..errors import HHError
from ..jsonio import as_dict, as_list, num, text, write_text_atomic
from . import detail_sections as det
from . import lineage, path_section
from . import run_sections as sec
from .fmt import METRICS, MISSING, change_pct, fcost, fnum, pct, power, reduction_pct, seconds, with_unit
from .page import card, kv_table, page, pre, section
from .rundata import RunData, load_run, spec_excerpt


def _ppa_cards(ini: Mapping[str, object], best: Mapping[str, object]) -> list[str]:
    red = reduction_pct(ini.get("cost"), best.get("cost"))
    lower = f"{pct(red, signed=False)} lower" if red is not None else "change " + MISSING
    out = [card("Cost (best)", fcost(best.get("cost")), f"initial {fcost(ini.get('cost'))}; {lower}",
                "good" if red is not None and round(red, 1) > 0 else "")]
    for key in ("area_um2", "delay_ns", "power_mw"):
        label, unit, _ = METRICS[key]
        show = power if key == "power_mw" else (lambda v, u=unit: with_unit(v, u))
        ch = change_pct(ini.get(key), best.get(key))
        cls = "" if ch is None or round(ch, 1) == 0 else "good" if ch < 0 else "bad"
        out.append(card(f"{label} (best)", show(best.get(key)), f"initial {show(ini.get(key))}; {pct(ch)}", cls))
    return out


def _cards(rd: RunData) -> str:
    ini, best = sec.merged(rd, "initial"), sec.merged(rd, "best")
    if best:
        out = _ppa_cards(ini, best)
    elif rd.has_summary:
        out = [card("Result", "no valid design", "Phase 2 did not run", "bad")]
    else:
        costs = [c for st in rd.steps if (c := num(st.global_best_cost if "global_best_cost" in st.model_fields_set
                                                   else st.best_cost)) is not None]
        out = [card("Result", "unfinished", f"best cost so far {fcost(min(costs))} after {len(rd.steps)} steps"
                    if costs else "no summary.json yet", "bad")]
    p1 = rd.phase1_stats
    out.append(card("Phase 1 valid", f"{fnum(p1.valid)} / {fnum(p1.candidates)}", f"repaired {fnum(p1.repaired)}"))
    out.append(card("Evaluations", fnum(rd.summary.evaluations, missing=str(len(rd.evals))),
                    f"cache hits {fnum(rd.summary.cache_hits, missing='—')}; "
                    f"wall {seconds(rd.summary.wall_s, missing='—')}"))
    ps = rd.summary.proofs
    if ps is not None and ps.accepted:
        rate = 100 * (ps.proven_rate or 0.0)
        out.append(card("Accepted RTL changes proven", pct(rate, signed=False),
                        f"{len(ps.accepted)} accepted; median proof {seconds(ps.median_proof_s, missing='—')}",
                        "good" if rate == 100 else "bad"))
    return f'<div class="cards">{"".join(out)}</div>'


def _verdict(rd: RunData) -> str:
    """One sentence a reader takes away: how much better the best design is, and in what."""
    ini, best = sec.merged(rd, "initial"), sec.merged(rd, "best")
    red = reduction_pct(ini.get("cost"), best.get("cost"))
    if red is None:
        return ""
    if ini.get("key") and ini.get("key") == best.get("key") or round(red, 2) == 0:
        msg = "No proposal beat the initial design: the best design is the initial one."
    else:
        changes = [f"{METRICS[k][0].lower()} {pct(change_pct(ini.get(k), best.get(k)))}"
                   for k in ("area_um2", "delay_ns", "power_mw") if change_pct(ini.get(k), best.get(k)) is not None]
        msg = (f"The best design's cost is {pct(red, signed=False)} lower than the initial design's "
               f"({', '.join(changes)}).")
    timing = best.get("met_timing")
    period = as_dict(rd.resolved.get("ppa")).get("clock_period_ns")
    if timing is not None:
        msg += (" It meets" if timing else " It does NOT meet") + f" the {with_unit(period, 'ns')} clock period."
    return f'<p class="verdict">{escape(msg)}</p>'


def _ports(resolved: Mapping[str, object]) -> str:
    ports = [as_dict(p) for p in as_list(as_dict(resolved.get("interface")).get("ports"))]
    parts = []
    for p in ports:
        w = num(p.get("width")) or 1
        rng = f"[{int(w) - 1}:0] " if w > 1 else ""
        parts.append(f"{text(p.get('dir'))} {'signed ' if p.get('signed') else ''}{rng}{text(p.get('name'))}")
    return ", ".join(parts) or MISSING


def _design(rd: RunData) -> str:
    r = rd.resolved
    iface, ppa, ann, gen = (as_dict(r.get(k)) for k in ("interface", "ppa", "anneal", "generation"))
    # resolved.yaml spells one clock `clock:`/`reset:`, several as `clocks:`/`resets:` lists
    clocks = [text(as_dict(c).get("name")) for c in iface.get("clocks") or []] or [text(iface.get("clock"))]
    resets = [as_dict(x) for x in iface.get("resets") or []]
    if not resets and iface.get("reset"):
        resets = [as_dict(iface["reset"])]
    weights = as_dict(ppa.get("weights"))
    reset_s = ", ".join(f"{text(x.get('name'))} (active {text(x.get('active'))})" for x in resets) or "none"
    clock_s = ", ".join(c for c in clocks if c) or "none (combinational)"
    rows = [
        ("top module", text(r.get("top")) or MISSING),
        ("clock / reset", f"{clock_s} / {reset_s}"),
        ("ports", _ports(r)),
        ("clock period", with_unit(ppa.get("clock_period_ns"), "ns")),
        ("liberty", text(ppa.get("liberty_path") or ppa.get("liberty") or rd.manifest.get("liberty")) or MISSING),
        ("cost weights", ", ".join(f"{k} {fnum(v)}" for k, v in weights.items()) or MISSING),
        ("flow preset / power", f"{text(ppa.get('flow')) or MISSING} / {text(ppa.get('power')) or MISSING}"),
        ("generation", f"{text(gen.get('provider')) or MISSING}" +
         (f", model {text(gen.get('model'))}" if gen.get("provider") == "openai" else "")),
        ("annealing", f"{fnum(ann.get('iterations'))} iterations × {fnum(ann.get('chains'))} chains, "
                      f"seed {fnum(rd.summary.seed if rd.summary.seed is not None else ann.get('seed'))}"),
    ]
    if text(r.get("description")):
        rows.insert(0, ("description", text(r.get("description"))))
    spec, where = spec_excerpt(rd)
    spec_html = (f'<h3>Specification</h3><p class="muted">{escape(where)}</p>' +
                 (pre(spec, "wrap") if spec is not None else ""))
    return section(f"Design: {rd.design_name}",
                   f'<div class="cols"><div>{kv_table(rows)}</div><div>{spec_html}</div></div>',
                   anchor="design")


def _problems(rd: RunData) -> str:
    parts = []
    if rd.status_note:
        parts.append(section("Run status", f"<p>{escape(rd.status_note)}</p>", cls="problems"))
    if rd.problems:
        items = "".join(f"<li>{escape(p)}</li>" for p in rd.problems)
        parts.append(section("Missing or unreadable files: parts of this page are empty", f"<ul>{items}</ul>",
                             cls="problems"))
    return "".join(parts)


def _phase2(rd: RunData) -> list[str]:
    """The Phase-2 and result sections, or one note when Phase 2 never started."""
    if rd.summary.status == "no-valid-candidate" and not rd.steps:
        return [section("Phase 2 and results", '<p class="na">Not run: no candidate passed Phase 1.</p>',
                        anchor="anneal"), det.reproduce(rd)]
    return [sec.annealing(rd), sec.proofs(rd), sec.ppa_space(rd), sec.moves(rd), det.ppa_table(rd),
            path_section.critical_path(rd), lineage.lineage_section(rd), det.rtl_diff(rd), det.reproduce(rd)]


def _toc(body: str) -> str:
    """Links to the sections the page has."""
    links = (("design", "Design"), ("phase1", "Phase 1"), ("anneal", "Annealing"), ("proofs", "Equivalence"),
             ("ppa-space", "PPA space"),
             ("moves", "Moves"), ("ppa", "Best vs initial"), ("path", "Critical path"),
             ("lineage", "Lineage"), ("rtl", "RTL diff"), ("reproduce", "Reproduce"))
    return '<p class="muted">' + " · ".join(f'<a href="#{a}">{escape(t)}</a>' for a, t in links
                                           if f'id="{a}"' in body) + "</p>"


def render_html(rd: RunData) -> str:
    status = rd.summary.status or ("incomplete" if not rd.has_summary else "")
    seed = rd.summary.seed if rd.summary.seed is not None else rd.manifest.get("seed")
    sub = " · ".join(x for x in (f"run {rd.path.name}", f"seed {fnum(seed)}",
                                  f"status {status}" if status else "", text(rd.manifest.get("created"))) if x)
    sections = "".join([_design(rd), sec.phase1(rd), *_phase2(rd)])
    body = [_problems(rd), _verdict(rd), _cards(rd), _toc(sections), sections]
    return page(f"HyperHeurist report: {rd.design_name}", sub, body)


class ReportError(HHError):
    """The page could not be rendered (a bug in the report, not in the run): one line, exit code 3."""


def render_run(run_dir: Path) -> Path:
    """Write ``run_dir/report.html`` from the run's files and return its path.

    Raises ``InputError`` for a path that is not a run directory, ``OSError`` when the page cannot be
    written, and ``ReportError`` (an ``HHError``) for anything unexpected: never a bare traceback.
    """
    rd = load_run(Path(run_dir))
    try:
        html = render_html(rd)
    except Exception as exc:  # a report bug must not turn a finished run into a crash
        raise ReportError(f"{rd.path}: report not rendered ({type(exc).__name__}: {exc})") from exc
    out = rd.path / "report.html"
    write_text_atomic(out, html)
    return out
