"""Phase 1: every candidate (seed files, LLM answers) through the gates and PPA, LLM repair of the rejected."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import JsonValue

from ..candidate import Candidate
from ..errors import HHError
from ..evaluate import EvalTask, first_line
from ..journal import INFRA
from ..recipe import FlowPreset
from ..record.chain import proof_kind
from ..record.entries import Phase1Record
from ..record.evaluation import EvaluationRecord
from ..record.summary import Phase1Entry
from ..search.state import Evaluation, State
from .session import Session

if TYPE_CHECKING:
    from ..llm.protocol import LLM
    from ..llm.rules import RuleMemory

GateReport = dict[str, JsonValue]  # the gate chain's JSON report (free-form: each gate adds its own fields)


@dataclass(frozen=True)
class GateFailure:
    """What the repair prompt is told about a rejection."""

    gate: str
    message: str
    passed: bool = False


@dataclass
class Phase1Result:
    valid: list[tuple[State, Evaluation]] = field(default_factory=list)
    entries: list[Phase1Entry] = field(default_factory=list)


class Phase1:
    def __init__(self, session: Session, flow: FlowPreset, llm: LLM | None, rules: RuleMemory | None,
                 on_no_candidates: Callable[[], None]) -> None:
        self.s = session
        self.flow = flow
        self.llm = llm
        self.rules = rules
        self.llm_note: str | None = None  # why the LLM stopped answering mid-run, for the summary
        self.duplicates: dict[str, list[str]] = {}  # kept candidate's digest -> labels of identical ones merged
        self._on_no_candidates = on_no_candidates

    def run(self) -> Phase1Result:
        cands = self._candidates()
        merged = sum(len(v) for v in self.duplicates.values())
        same = {c.digest: c.label or c.short for c in cands}
        dups = (f"; {merged} identical answer(s) merged: "
                + ", ".join(f"{d} = {same[k]}" for k, v in self.duplicates.items() for d in v)) if merged else ""
        self.s.say(f"hh: phase 1: {len(cands)} candidates through the gates ({self.s.jobs} jobs){dups}")
        out = Phase1Result()
        for cand, (ev, gates) in zip(cands, self._outcomes(cands), strict=True):
            self._record(out, cand, ev, gates, None)
            self.s.record_fault(ev)
            if ev.valid:
                out.valid.append((State(cand, self.flow.recipe), ev))
                continue
            if self.rules is not None:
                self.rules.observe(ev.failed_gate or "unknown", ev.message)
            repaired = self._repair(cand, ev, out)
            if repaired is not None:
                out.valid.append(repaired)
        if self.rules is not None:
            self.rules.save()
        return out

    def _candidates(self) -> list[Candidate]:
        from ..llm.providers import initial_candidates

        try:
            cands = initial_candidates(self.s.design, self.llm, self.rules)
        except HHError:  # not one candidate (the LLM failed): the summary still says why, in the server's words
            self._on_no_candidates()
            raise
        unique: dict[str, Candidate] = {}
        for c in cands:
            if c.digest in unique:  # the same design twice: gated once, the copies named in journal and terminal
                self.duplicates.setdefault(c.digest, []).append(c.label or c.short)
            unique.setdefault(c.digest, c)
        return list(unique.values())

    def _outcomes(self, cands: list[Candidate]) -> list[tuple[Evaluation, GateReport | None]]:
        """Gate + PPA every candidate (journal-memoised), in candidate order."""
        results: dict[int, tuple[Evaluation, GateReport | None]] = {}
        todo: list[tuple[int, EvalTask]] = []
        for i, c in enumerate(cands):
            st = State(c, self.flow.recipe)
            rec = self.s.journal.phase1.get(st.key)
            if rec is not None:
                results[i] = (rec.evaluation.evaluation(), rec.gates)
            else:
                todo.append((i, EvalTask(self.s.design, self.s.rd.path, st, None, self.s.power)))
        for (i, _), res in zip(todo, self.s.run_tasks([t for _, t in todo]), strict=True):
            results[i] = (res.evaluation, res.gate_report)
        return [results[i] for i in range(len(cands))]

    def _record(self, out: Phase1Result, cand: Candidate, ev: Evaluation, gates: GateReport | None,
                repaired_from: str | None) -> None:
        """Journal one Phase-1 verdict (with its equivalence proof) and keep it for the summary."""
        entry = Phase1Entry(label=cand.label or cand.short, digest=cand.digest, origin=cand.origin,
                            verdict="valid" if ev.valid else "invalid", gate=ev.failed_gate, message=ev.message,
                            repaired_from=repaired_from, proof=proof_kind(ev.proof) if ev.proof else None)
        self.s.journal.record_phase1(Phase1Record.model_validate({
            "type": "phase1", "key": State(cand, self.flow.recipe).key, "digest": cand.digest, "label": entry.label,
            "origin": cand.origin, "repaired_from": repaired_from, "verdict": entry.verdict, "gate": ev.failed_gate,
            "message": ev.message, "evaluation": EvaluationRecord.of(ev), "gates": gates, "proof": ev.proof,
            **({"duplicates": self.duplicates[cand.digest]} if cand.digest in self.duplicates else {}),
        }))
        out.entries.append(entry)
        self.s.count(ev)

    def _repair(self, cand: Candidate, ev: Evaluation, out: Phase1Result) -> tuple[State, Evaluation] | None:
        """Up to ``generation.repair_attempts`` LLM fixes of a rejected candidate, each through the gates."""
        if self.llm is None or ev.failed_gate == INFRA or not self.llm.available:
            return None
        from ..llm.errors import LLMUnavailable

        current, current_ev = cand, ev
        for _attempt in range(self.s.design.generation.repair_attempts):
            failure = GateFailure(current_ev.failed_gate or "unknown", current_ev.message)
            try:
                fixed = self.llm.repair(self.s.design, current, failure, self.rules)
            except LLMUnavailable as exc:  # the client stays, disabled: its usage still goes in the summary
                self.llm_note = f"LLM unavailable during repair: {first_line(exc)}"
                self.s.say(f"hh: {self.llm_note}; continuing without repair")
                return None
            if fixed is None:
                return None
            (out_ev, gates), = self._outcomes([fixed])
            self._record(out, fixed, out_ev, gates, current.digest)
            if out_ev.valid:
                return State(fixed, self.flow.recipe), out_ev
            if self.rules is not None:
                self.rules.observe(out_ev.failed_gate or "unknown", out_ev.message)
            current, current_ev = fixed, out_ev
        return None
