"""``hh run`` end to end: session, Phase 1, baseline, Phase 2, summary and outputs, report."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..config import DesignConfig
from ..errors import HHError, NoValidCandidate, StorageError, ToolError
from ..evaluate import first_line
from ..journal import INFRA
from ..recipe import load_flow
from ..record.entries import EndRecord
from ..record.summary import RunSummary
from ..rundir import RunDir
from .outputs import best_of, llm_usage, no_valid_summary, run_summary, write_outputs, write_summary
from .phase1 import Phase1
from .phase2 import Scorer, run_phase2
from .preflight import preflight
from .session import FULL_DISK, RunOptions, Session, open_run_dir

if TYPE_CHECKING:
    from ..llm.protocol import LLM
    from ..llm.rules import RuleMemory


def _llm(s: Session) -> tuple[LLM | None, str | None, RuleMemory]:
    """The LLM client (None offline), a note on why it is offline or replaying, and the rule memory."""
    from ..llm.providers import make_client
    from ..llm.rules import RuleMemory

    opts = s.opts
    replayed = opts.replay / "rules.json" if opts.replay is not None else None
    rules = RuleMemory(s.rd.path / "rules.json", s.design.generation.rules_file, start_from=replayed,
                       power_on_values=s.design.verification.initial == "power_on_values")
    client, note = make_client(s.design, s.rd.path, base_url=opts.base_url, api_key=opts.api_key,
                               model=opts.model, replay_dir=opts.replay)
    if client is not None:
        client.attach(rules=rules, say=s.say)
    if note:
        s.say(f"hh: {note}")
    return client, note, rules


def _run(s: Session) -> RunSummary:
    design = s.design
    flow = load_flow(design.ppa.flow)
    llm, note, rules = _llm(s)
    phase1 = Phase1(s, flow, llm, rules,
                    on_no_candidates=lambda: write_summary(s, no_valid_summary(s, [], llm_usage(llm, note))))
    p1 = phase1.run()
    note = phase1.llm_note or note
    if not p1.valid:
        summary = no_valid_summary(s, p1.entries, llm_usage(llm, note))
        s.journal.record(EndRecord(status=summary.status, best_cost=None))
        summary.journal = s.journal.head()
        write_summary(s, summary)
        faults = sum(e.gate == INFRA for e in p1.entries)
        if faults:  # a tool fault may have hidden a valid candidate: not a verdict on the design
            raise ToolError(f"no valid candidate, and {faults} of {len(p1.entries)} hit a tool fault: "
                            f"{s.counters.infra_first}; fix the tool, then hh run --resume {s.rd.path}")
        counts = ", ".join(f"{g}: {n}" for g, n in summary.rejected_by_gate.items()) or "none"
        raise NoValidCandidate(f"no candidate passed every gate ({len(p1.entries)} tried; rejected by {counts}); "
                               f"see {s.rd.path}")
    scorer = Scorer(design, flow)
    baseline_state, baseline_ev = p1.valid[0]
    assert baseline_ev.metrics is not None, "a valid evaluation has metrics"
    scorer.baseline = baseline_ev.metrics
    starts = [(st, scorer.score(ev)) for st, ev in p1.valid]
    s.say(f"hh: phase 1: {len(p1.valid)} valid of {len(p1.entries)}; baseline {baseline_state.candidate.label} "
          f"area {baseline_ev.metrics.area_um2:.0f} um2, delay {baseline_ev.metrics.delay_ns:.3f} ns")
    result = run_phase2(s, flow, scorer, llm, starts) if design.anneal.iterations > 0 else None
    summary = run_summary(s, starts, p1.entries, result, llm_usage(llm, note))
    best_cost = summary.best.cost if summary.best else None
    s.journal.record(EndRecord(status=summary.status, best_cost=best_cost))
    summary.journal = s.journal.head()
    write_outputs(s, starts[0], best_of(starts, result), summary)
    return summary


def run(design: DesignConfig, opts: RunOptions) -> tuple[RunDir, RunSummary]:
    preflight(design, opts)
    rd, resumed = open_run_dir(design, opts)
    try:
        s = Session(design, rd, opts, resume=resumed)
        s.open()
        try:
            summary = _run(s)
        except OSError as exc:
            if exc.errno in FULL_DISK:
                raise StorageError(f"cannot write {exc.filename or rd.path}: {exc.strerror}; everything written "
                                   f"so far is kept; free some space, then: hh run --resume {rd.path}") from None
            raise
        finally:
            s.close()
    except NoValidCandidate:
        rd.unlock()
        _render(rd, opts)  # the funnel of rejections is what the user needs to see then
        raise
    finally:
        rd.unlock()  # the run is over (or failed): another hh run may resume it now
    _render(rd, opts)
    return rd, summary


def _render(rd: RunDir, opts: RunOptions) -> None:
    if not opts.report:
        return
    from ..report import render_run

    try:
        render_run(rd.path)
    except (HHError, OSError) as exc:
        print(f"hh: warning: report not written: {first_line(exc)}", file=sys.stderr)
