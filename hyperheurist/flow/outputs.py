"""The run's outputs: the RunSummary assembled from what the phases found, and the files written from it
(initial/, best/, pareto.json, metrics.json, summary.json)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from ..jsonio import write_json, write_text_atomic
from ..ppa.metrics import METRIC_DIRECTIONS, librelane_metrics
from ..record.chain import Checked, proof_kind, proofs_by_rtl
from ..record.proof import Proof
from ..record.summary import (
    InfraFaults,
    LibreLaneMetrics,
    Phase1Entry,
    Phase1Stats,
    Point,
    ProofStats,
    RunSummary,
    Search,
)
from ..rundir import manifest
from ..search.annealer import AnnealResult
from ..search.moves.params import bake_parameters
from ..search.state import Evaluation, State
from .session import Session

if TYPE_CHECKING:
    from ..llm.protocol import LLM, Usage

Scored = tuple[State, Evaluation]


def covering_proof(st: State, ev: Evaluation, by_rtl: dict[str, Checked]) -> Proof | None:
    """The design's own evaluation's proof, else the one that covers its RTL (a recipe-only evaluation runs
    no check: its RTL is the one an earlier check proved)."""
    held = by_rtl.get(st.candidate.digest)
    return ev.proof or (held.proof if held is not None else None)


def design_point(st: State, ev: Evaluation, by_rtl: dict[str, Checked]) -> Point:
    """The design as the summary lists it."""
    m = ev.metrics
    proof = covering_proof(st, ev, by_rtl)
    return Point(digest=st.candidate.digest, key=st.key, label=st.candidate.label, move=st.candidate.move,
                 recipe=st.recipe.to_dict(), area_um2=m.area_um2 if m else None, delay_ns=m.delay_ns if m else None,
                 power_mw=m.power_mw if m else None, cost=ev.cost, cells=m.cells if m else None,
                 slack_ns=m.slack_ns if m else None, fmax_mhz=m.fmax_mhz if m else None,
                 power_fidelity=m.power_fidelity if m else None, proof=proof_kind(proof) if proof else None)


def llm_usage(llm: LLM | None, note: str | None) -> Usage:
    from ..llm.budget import Budget

    out = llm.usage().copy() if llm is not None else Budget(0, 0).usage()
    if note:
        out["note"] = note
    return out


def reproduce(s: Session) -> list[str]:
    src = s.design.source or s.rd.resolved
    return [
        f"hh run {src} --set anneal.seed={s.design.anneal.seed} --set anneal.iterations={s.design.anneal.iterations}",
        f"hh run --resume {s.rd.path}",
        f"hh gate {src} {s.rd.path / 'best' / 'src'}/*.v",
    ]


def base_summary(s: Session, entries: list[Phase1Entry], llm: Usage) -> RunSummary:
    """What every summary says, whether or not a candidate was valid."""
    p1 = Phase1Stats.of(entries)
    c = s.counters
    return RunSummary(design=s.design.name, seed=s.design.anneal.seed, run_dir=str(s.rd.path), phase1=p1,
                      rejected_by_gate=dict(p1.rejected_by_gate), wall_s=s.wall_s(), cache_hits=c.cache_hits,
                      infrastructure_faults=InfraFaults(count=c.infra_faults, first=c.infra_first), llm=llm,
                      tools=manifest(s.design, s.design.anneal.seed, [])["tools"], reproduce=reproduce(s),
                      evaluations=c.evaluations)


def no_valid_summary(s: Session, entries: list[Phase1Entry], llm: Usage) -> RunSummary:
    summary = base_summary(s, entries, llm)
    summary.status = "no-valid-candidate"
    return summary


def best_of(starts: list[Scored], result: AnnealResult | None) -> Scored:
    """The summary's best: the annealer's, or without annealing the best Phase-1 start (first of equals)."""
    if result is not None:
        return result.best
    return min(starts, key=lambda se: se[1].cost if se[1].cost is not None else float("inf"))


def run_summary(s: Session, starts: list[Scored], entries: list[Phase1Entry], result: AnnealResult | None,
                llm: Usage) -> RunSummary:
    summary = base_summary(s, entries, llm)
    best_st, best_ev = best_of(starts, result)
    by_rtl = proofs_by_rtl(s.journal.prefix)

    def point(st: State, ev: Evaluation) -> Point:
        return design_point(st, ev, by_rtl)

    if result is not None:
        summary.pareto = [point(st, ev) for st, ev in result.pareto]
        summary.moves = result.move_stats
        summary.phase2_rejected_by_gate = dict(result.invalid_by_gate)
        summary.status = "interrupted" if s.stop() else "complete"
        summary.search = Search.model_validate({  # the annealer's counters and history, as JSON values
            "chains": s.design.anneal.chains, "iterations": s.design.anneal.iterations,
            "iterations_done": result.iterations_done, "chain_best": [point(st, ev) for st, ev in result.chain_best],
            "t0": result.t0, "counters": result.counters, "history": result.history})
    else:
        summary.pareto, summary.phase2_rejected_by_gate, summary.status = [point(best_st, best_ev)], {}, "complete"
    for g, n in summary.phase2_rejected_by_gate.items():
        summary.rejected_by_gate[g] = summary.rejected_by_gate.get(g, 0) + n
    summary.initial, summary.best = point(*starts[0]), point(best_st, best_ev)
    c0, c1 = summary.initial.cost, summary.best.cost
    summary.improvement = round((c0 - c1) / c0, 6) if c0 and c1 is not None else 0.0
    if summary.status == "interrupted":
        summary.interrupted_by = s.stop.reason
    summary.proofs = ProofStats.from_journal(s.journal.prefix)
    return summary


def _write_design(folder: Path, st: State, ev: Evaluation, proof: Proof | None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    baked = bake_parameters(st.candidate)  # the sources alone reproduce the scored design
    baked.write(folder)
    write_text_atomic(folder / "design.v", baked.text)
    write_text_atomic(folder / "recipe.yaml", yaml.safe_dump(st.recipe.to_dict(), sort_keys=False))
    write_json(folder / "ppa.json", {"metrics": ev.metrics.to_dict() if ev.metrics is not None else None,
                                     "cost": ev.cost, "candidate": st.candidate.to_dict(),
                                     "proof": proof.to_json() if proof is not None else None})


def write_outputs(s: Session, initial: Scored, best: Scored, summary: RunSummary) -> None:
    assert summary.best is not None and best[0].key == summary.best.key, "best/ must hold the summary's best"
    by_rtl = proofs_by_rtl(s.journal.prefix)
    for folder, (st, ev) in (("initial", initial), ("best", best)):  # with the check that covers its RTL
        _write_design(s.rd.path / folder, st, ev, covering_proof(st, ev, by_rtl))
    write_json(s.rd.path / "pareto.json", [p.to_json() for p in summary.pareto])
    # LibreLane names, for flow engineers' tools
    summary.metrics = LibreLaneMetrics(initial=librelane_metrics(initial[1].metrics),
                                       best=librelane_metrics(best[1].metrics), directions=METRIC_DIRECTIONS)
    write_json(s.rd.path / "metrics.json", summary.metrics.best)
    write_summary(s, summary)


def write_summary(s: Session, summary: RunSummary) -> None:
    summary.wall_s = s.wall_s()
    write_json(s.rd.summary, summary.to_json())
