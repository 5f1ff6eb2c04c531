"""RunSummary: what summary.json holds, typed; ``hh run`` writes it and the report reads it back.

``from_dict`` reads what is on disk tolerantly (a wrong type becomes None or empty, never a crash: a
report must render for an interrupted, older or hand-edited run); ``to_dict`` writes the same keys
summary.json has always had, plus ``proofs`` and the per-design ``proof`` verdicts.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..jsonio import as_dict, as_list, num, text
from .entries import EvalRecord, JournalRecord, Phase1Record, StepRecord
from .enums import Validity
from .proof import Proof

Json = dict[str, Any]
Checked = Phase1Record | EvalRecord  # a journal record that may hold an equivalence proof
PROOF_KINDS = ("proven", "bounded", "refuted", "inconclusive", "not checked")
# what a design's function rests on, against the reference, strongest first: an unbroken chain of proofs
# from a Phase-1 design proven against the reference; a chain with a bounded link; simulation only
EVIDENCE = ("proven", "bounded", "simulated only")


def _int(x: Any) -> int | None:
    v = num(x)
    return int(v) if v is not None else None


def _opt_text(x: Any) -> str | None:
    return x if isinstance(x, str) else None


def proofs_by_rtl(records: Sequence[JournalRecord]) -> dict[str, Checked]:
    """RTL digest -> the journal record (Phase 1 or eval) with the strongest equivalence verdict on that RTL
    (proven before bounded before the rest; the first of equals): a check that timed out against one parent
    does not hide a proof of the same RTL against another."""
    out: dict[str, Checked] = {}
    for r in records:
        if isinstance(r, Phase1Record | EvalRecord) and r.proof is not None:
            held = out.get(r.digest)
            if held is None or PROOF_KINDS.index(proof_kind(r.proof)) < PROOF_KINDS.index(proof_kind(held.proof)):
                out[r.digest] = r
    return out


def _rtl(key: Any) -> str:
    """The RTL part of an evaluation key (``<rtl digest>-<recipe digest>``)."""
    return text(key).partition("-")[0]


def proof_kind(proof: Proof | object) -> str:
    """The verdict an evaluation's ``proof`` record names, or "not checked" when no check ran."""
    kind = proof.verdict if isinstance(proof, Proof) else as_dict(proof).get("verdict")
    return kind if isinstance(kind, str) and kind in PROOF_KINDS else "not checked"


def evidence_of(kind: str | None) -> str:
    """One check's verdict as evidence: proven, bounded, or (anything else) simulated only."""
    return kind if kind in ("proven", "bounded") else "simulated only"


def weaker(a: str, b: str) -> str:
    return EVIDENCE[max(EVIDENCE.index(a), EVIDENCE.index(b))]


def evidence_by_design(records: Sequence[JournalRecord], accepted: list[AcceptedChange]) -> dict[str, str]:
    """RTL digest -> the evidence against the reference of every valid Phase-1 design and accepted change.

    Phase 1 checks a design against the reference; Phase 2 checks a change against its parent (differential
    and formal), so a change's evidence is the weakest link of its chain back to Phase 1, and the strongest
    such chain when several reach the same RTL. ``accepted`` is ``ProofStats.accepted``, in journal order."""
    out: dict[str, str] = {}
    for r in records:
        if isinstance(r, Phase1Record) and r.verdict == Validity.VALID:
            d = r.digest
            ev = evidence_of(proof_kind(r.proof))
            out[d] = ev if d not in out else EVIDENCE[min(EVIDENCE.index(ev), EVIDENCE.index(out[d]))]
    for a in accepted:
        if not a.digest:
            continue
        ev = weaker(evidence_of(a.verdict), out.get(a.parent_digest, "simulated only"))
        held = out.get(a.digest)
        out[a.digest] = ev if held is None else EVIDENCE[min(EVIDENCE.index(ev), EVIDENCE.index(held))]
    return out


@dataclass(frozen=True)
class Point:
    """One evaluated design as the summary lists it (initial, best, Pareto, chain bests)."""

    digest: str = ""
    key: str = ""
    label: str | None = None
    move: str | None = None
    recipe: Json = field(default_factory=dict)
    area_um2: float | None = None
    delay_ns: float | None = None
    power_mw: float | None = None
    cost: float | None = None
    cells: int | None = None
    slack_ns: float | None = None
    fmax_mhz: float | None = None
    power_fidelity: str | None = None
    proof: str | None = None  # the verdict of the equivalence check that admitted it; None: none ran

    def to_dict(self) -> Json:
        return {"digest": self.digest, "key": self.key, "label": self.label, "move": self.move, "recipe": self.recipe,
                "area_um2": self.area_um2, "delay_ns": self.delay_ns, "power_mw": self.power_mw, "cost": self.cost,
                "cells": self.cells, "slack_ns": self.slack_ns, "fmax_mhz": self.fmax_mhz,
                "power_fidelity": self.power_fidelity, "proof": self.proof}

    @classmethod
    def from_dict(cls, d: Any) -> Point:
        d = as_dict(d)
        return cls(digest=text(d.get("digest")), key=text(d.get("key")), label=_opt_text(d.get("label")),
                   move=_opt_text(d.get("move")), recipe=as_dict(d.get("recipe")), area_um2=num(d.get("area_um2")),
                   delay_ns=num(d.get("delay_ns")), power_mw=num(d.get("power_mw")), cost=num(d.get("cost")),
                   cells=_int(d.get("cells")), slack_ns=num(d.get("slack_ns")), fmax_mhz=num(d.get("fmax_mhz")),
                   power_fidelity=_opt_text(d.get("power_fidelity")), proof=_opt_text(d.get("proof")))


@dataclass(frozen=True)
class Phase1Entry:
    label: str = ""
    digest: str = ""
    origin: str | None = None
    verdict: str = ""  # "valid" | "invalid"
    gate: str | None = None
    message: str = ""
    repaired_from: str | None = None
    proof: str | None = None  # equivalence verdict against the reference (None: no check ran)

    def to_dict(self) -> Json:
        return {"label": self.label, "digest": self.digest, "origin": self.origin, "verdict": self.verdict,
                "gate": self.gate, "message": self.message, "repaired_from": self.repaired_from, "proof": self.proof}

    @classmethod
    def from_dict(cls, d: Any) -> Phase1Entry:
        """From summary.json (``proof`` a verdict name) or a journal record (``proof`` the verdict record)."""
        d = as_dict(d)
        proof = d.get("proof")
        return cls(label=text(d.get("label")), digest=text(d.get("digest")), origin=_opt_text(d.get("origin")),
                   verdict=text(d.get("verdict")), gate=_opt_text(d.get("gate")), message=text(d.get("message")),
                   repaired_from=_opt_text(d.get("repaired_from")),
                   proof=proof_kind(proof) if isinstance(proof, dict) else _opt_text(proof))


def _counts(d: Any) -> dict[str, int]:
    return {str(k): n for k, v in as_dict(d).items() if (n := _int(v)) is not None}


@dataclass(frozen=True)
class Phase1Stats:
    candidates: int = 0  # initial candidates (repairs not counted)
    valid: int = 0
    repaired: int = 0  # repairs that became valid
    rejected_by_gate: dict[str, int] = field(default_factory=dict)
    entries: list[Phase1Entry] = field(default_factory=list)

    @classmethod
    def of(cls, entries: list[Phase1Entry]) -> Phase1Stats:
        rejected: dict[str, int] = {}
        for e in entries:
            if e.verdict != "valid":
                rejected[e.gate or "unknown"] = rejected.get(e.gate or "unknown", 0) + 1
        return cls(candidates=sum(1 for e in entries if e.repaired_from is None),
                   valid=sum(1 for e in entries if e.verdict == "valid"),
                   repaired=sum(1 for e in entries if e.repaired_from and e.verdict == "valid"),
                   rejected_by_gate=rejected, entries=list(entries))

    def to_dict(self) -> Json:
        return {"candidates": self.candidates, "valid": self.valid, "repaired": self.repaired,
                "rejected_by_gate": dict(self.rejected_by_gate), "entries": [e.to_dict() for e in self.entries]}

    @classmethod
    def from_dict(cls, d: Any) -> Phase1Stats:
        """A count that is missing or not a number is rebuilt from the entries (older or damaged summaries)."""
        d = as_dict(d)
        entries = [Phase1Entry.from_dict(e) for e in as_list(d.get("entries")) if isinstance(e, dict)]
        derived = cls.of(entries)
        rejected = _counts(d.get("rejected_by_gate"))

        def count(name: str, fallback: int) -> int:
            v = _int(d.get(name))
            return fallback if v is None else v

        return cls(candidates=count("candidates", derived.candidates), valid=count("valid", derived.valid),
                   repaired=count("repaired", derived.repaired),
                   rejected_by_gate=rejected if "rejected_by_gate" in d else derived.rejected_by_gate, entries=entries)


@dataclass(frozen=True)
class AcceptedChange:
    """One accepted Phase-2 RTL change and the equivalence verdict that covers its RTL."""

    key: str
    parent: str
    move: str | None
    verdict: str  # one of PROOF_KINDS
    proof_s: float | None
    engine: str | None
    proof_seq: int | None = None  # the journal record holding the verdict (None: none does)
    digest: str = ""  # the RTL digests of the change and its parent
    parent_digest: str = ""
    evidence: str | None = None  # against the reference, one of EVIDENCE (None: not recorded)

    def to_dict(self) -> Json:
        return {"key": self.key, "parent": self.parent, "move": self.move, "verdict": self.verdict,
                "proof_s": self.proof_s, "engine": self.engine, "proof_seq": self.proof_seq, "digest": self.digest,
                "parent_digest": self.parent_digest, "evidence": self.evidence}

    @classmethod
    def from_dict(cls, d: Any) -> AcceptedChange:
        d = as_dict(d)
        v, e = text(d.get("verdict")), d.get("evidence")
        return cls(key=text(d.get("key")), parent=text(d.get("parent")), move=_opt_text(d.get("move")),
                   verdict=v if v in PROOF_KINDS else "not checked", proof_s=num(d.get("proof_s")),
                   engine=_opt_text(d.get("engine")), proof_seq=_int(d.get("proof_seq")),
                   digest=text(d.get("digest")), parent_digest=text(d.get("parent_digest")),
                   evidence=e if e in EVIDENCE else None)


@dataclass(frozen=True)
class ProofStats:
    """Phase 2's accepted RTL changes counted by equivalence verdict, with the median proof time, and the
    evidence against the reference of every accepted design (RTL digest -> one of EVIDENCE)."""

    accepted: list[AcceptedChange] = field(default_factory=list)
    evidence: dict[str, str] = field(default_factory=dict)

    @property
    def by_verdict(self) -> dict[str, int]:
        return {k: sum(1 for a in self.accepted if a.verdict == k) for k in PROOF_KINDS}

    @property
    def median_proof_s(self) -> float | None:
        times = [a.proof_s for a in self.accepted if a.proof_s is not None and a.verdict != "not checked"]
        return round(statistics.median(times), 3) if times else None

    @property
    def proven_rate(self) -> float | None:
        n = len(self.accepted)
        return round(self.by_verdict["proven"] / n, 4) if n else None

    @classmethod
    def from_journal(cls, records: Sequence[JournalRecord]) -> ProofStats:
        """Every accepted step that changed the RTL (each (proposal, parent) once), with the verdict of its own
        evaluation against that parent, else of the first evaluation of the same RTL that has one (the
        annealer reuses a state's evaluation when another chain proposes it again; a recipe-only evaluation
        of that RTL runs no check)."""
        checked = [r for r in records if isinstance(r, EvalRecord) and r.proof is not None]
        own: dict[tuple[str, str], Checked] = {(r.key, text(r.parent)): r for r in checked}
        # a step the annealer composed from an earlier verdict on the same RTL pair under another recipe
        # (the gates read no recipe) is proven by that pair's check: keys are "<rtl digest>-<recipe>"
        by_pair: dict[tuple[str, str], Checked] = {}
        for r in checked:
            by_pair.setdefault((_rtl(r.key), _rtl(r.parent)), r)
        by_rtl = proofs_by_rtl(records)
        seen: set[tuple[str, str]] = set()
        out: list[AcceptedChange] = []
        for st in records:
            if not isinstance(st, StepRecord) or not st.accepted or st.proposal_digest == st.parent_digest:
                continue
            pair = (text(st.proposal), st.parent)
            if pair in seen:
                continue
            seen.add(pair)
            holder = own.get(pair) or by_pair.get((_rtl(pair[0]), _rtl(pair[1]))) \
                or by_rtl.get(text(st.proposal_digest))
            proof = holder.proof if holder else None
            out.append(AcceptedChange(key=pair[0], parent=pair[1], move=st.move,
                                      verdict=proof_kind(proof), proof_s=num(proof.wall_s) if proof else None,
                                      engine=proof.engine if proof else None,
                                      proof_seq=holder.seq if holder else None,
                                      digest=text(st.proposal_digest), parent_digest=st.parent_digest))
        evidence = evidence_by_design(records, out)
        return cls([replace(a, evidence=evidence.get(a.digest)) for a in out], evidence)

    def evidence_of(self, digest: str) -> str | None:
        """The evidence against the reference of the design with this RTL digest (None: not recorded)."""
        return self.evidence.get(digest)

    def to_dict(self) -> Json:
        return {"accepted_rtl_changes": len(self.accepted), "by_verdict": self.by_verdict,
                "proven_rate": self.proven_rate, "median_proof_s": self.median_proof_s,
                "accepted": [a.to_dict() for a in self.accepted], "evidence": dict(self.evidence)}

    @classmethod
    def from_dict(cls, d: Any) -> ProofStats:
        d = as_dict(d)
        evidence = {str(k): v for k, v in as_dict(d.get("evidence")).items() if v in EVIDENCE}
        return cls([AcceptedChange.from_dict(a) for a in as_list(d.get("accepted")) if isinstance(a, dict)], evidence)


@dataclass(frozen=True)
class Search:
    """What Phase 2 adds to the summary when it ran (absent with ``anneal.iterations: 0``)."""

    chains: int | None = None
    iterations: int | None = None
    iterations_done: int | None = None
    chain_best: list[Point] = field(default_factory=list)
    t0: float | None = None
    counters: Json = field(default_factory=dict)
    history: list[Json] = field(default_factory=list)

    def to_dict(self) -> Json:
        return {"chains": self.chains, "iterations": self.iterations, "iterations_done": self.iterations_done,
                "chain_best": [p.to_dict() for p in self.chain_best], "t0": self.t0, "counters": self.counters,
                "history": self.history}

    @classmethod
    def from_dict(cls, d: Json) -> Search | None:
        if "iterations_done" not in d:
            return None
        return cls(chains=_int(d.get("chains")), iterations=_int(d.get("iterations")),
                   iterations_done=_int(d.get("iterations_done")),
                   chain_best=[Point.from_dict(p) for p in as_list(d.get("chain_best"))], t0=num(d.get("t0")),
                   counters=as_dict(d.get("counters")), history=[as_dict(h) for h in as_list(d.get("history"))])


@dataclass
class RunSummary:
    design: str = ""
    seed: int | None = None
    run_dir: str = ""
    status: str = ""  # "complete" | "interrupted" | "no-valid-candidate"; "" when not recorded
    phase1: Phase1Stats = field(default_factory=Phase1Stats)
    rejected_by_gate: dict[str, int] = field(default_factory=dict)  # both phases
    wall_s: float | None = None
    cache_hits: int | None = None
    infrastructure_faults: Json = field(default_factory=dict)  # {"count", "first"}
    llm: Json = field(default_factory=dict)  # the client's usage record (free-form, from the server's words)
    tools: Json = field(default_factory=dict)  # tool name -> {"version", "path"} or {"error"}
    reproduce: list[str] = field(default_factory=list)
    initial: Point | None = None
    best: Point | None = None
    improvement: float | None = None
    evaluations: int | None = None
    moves: dict[str, Json] = field(default_factory=dict)
    phase2_rejected_by_gate: dict[str, int] | None = None  # None: no valid candidate, Phase 2 never started
    pareto: list[Point] = field(default_factory=list)
    search: Search | None = None
    interrupted_by: str | None = None
    journal: Json = field(default_factory=dict)  # {"records", "head"}
    metrics: Json | None = None  # LibreLane-named {"initial", "best", "directions"}; None until written
    proofs: ProofStats | None = None  # None: no valid candidate

    def to_dict(self) -> Json:
        out: Json = {
            "design": self.design, "seed": self.seed, "run_dir": self.run_dir, "phase1": self.phase1.to_dict(),
            "rejected_by_gate": dict(self.rejected_by_gate), "wall_s": self.wall_s, "cache_hits": self.cache_hits,
            "infrastructure_faults": self.infrastructure_faults, "llm": self.llm, "tools": self.tools,
            "reproduce": self.reproduce, "status": self.status,
            "initial": self.initial.to_dict() if self.initial else None,
            "best": self.best.to_dict() if self.best else None, "improvement": self.improvement,
            "evaluations": self.evaluations, "moves": self.moves,
        }
        if self.phase2_rejected_by_gate is not None:
            out["phase2_rejected_by_gate"] = dict(self.phase2_rejected_by_gate)
        out["pareto"] = [p.to_dict() for p in self.pareto]
        if self.search is not None:
            out.update(self.search.to_dict())
        if self.interrupted_by is not None:
            out["interrupted_by"] = self.interrupted_by
        if self.proofs is not None:
            out["proofs"] = self.proofs.to_dict()
        out["journal"] = self.journal
        if self.metrics is not None:
            out["metrics"] = self.metrics
        return out

    @classmethod
    def from_dict(cls, d: Any) -> RunSummary:
        d = as_dict(d)
        name = d.get("design")
        return cls(
            design=text(as_dict(name).get("name") if isinstance(name, dict) else name), seed=_int(d.get("seed")),
            run_dir=text(d.get("run_dir")), status=text(d.get("status")), phase1=Phase1Stats.from_dict(d.get("phase1")),
            rejected_by_gate=_counts(d.get("rejected_by_gate")), wall_s=num(d.get("wall_s")),
            cache_hits=_int(d.get("cache_hits")), infrastructure_faults=as_dict(d.get("infrastructure_faults")),
            llm=as_dict(d.get("llm")), tools=as_dict(d.get("tools")),
            reproduce=[text(c) for c in as_list(d.get("reproduce"))] or
            ([d["reproduce"]] if isinstance(d.get("reproduce"), str) else []),
            initial=Point.from_dict(d["initial"]) if isinstance(d.get("initial"), dict) else None,
            best=Point.from_dict(d["best"]) if isinstance(d.get("best"), dict) else None,
            improvement=num(d.get("improvement")), evaluations=_int(d.get("evaluations")),
            moves={str(k): as_dict(v) for k, v in as_dict(d.get("moves")).items()},
            phase2_rejected_by_gate=_counts(d["phase2_rejected_by_gate"]) if "phase2_rejected_by_gate" in d else None,
            pareto=[Point.from_dict(p) for p in as_list(d.get("pareto")) if isinstance(p, dict)],
            search=Search.from_dict(d), interrupted_by=_opt_text(d.get("interrupted_by")),
            journal=as_dict(d.get("journal")), metrics=as_dict(d["metrics"]) if "metrics" in d else None,
            proofs=ProofStats.from_dict(d["proofs"]) if isinstance(d.get("proofs"), dict) else None,
        )
