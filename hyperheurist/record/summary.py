"""RunSummary: what summary.json holds, as pydantic models; ``hh run`` writes it (``to_json``) and every
reader (the report, ``hh audit``, tools/sweep.py, tools/qor.py) reads it back (``RunSummary.read``).

``read`` is tolerant of what is on disk (a wrong type becomes None or empty, never a crash: a report must
render for an interrupted, older or hand-edited run); the leniency applies only to data read from disk
(validation context ``READ``), a summary built in code is validated as its types say. ``to_json`` writes
the keys summary.json has always had, in the same order (``proofs`` and the per-design ``proof`` verdicts
included), so a run's summary.json is byte for byte what the dict writer wrote.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Annotated

from pydantic import (
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    model_serializer,
    model_validator,
)

from ..jsonio import as_dict, as_list, num, text
from ..recipe import KnobValue
from .base import JsonRecord
from .chain import (
    EVIDENCE,
    PROOF_KINDS,
    Checked,
    evidence_by_design,
    proof_kind,
    proofs_by_rtl,
    rtl_part,
)
from .entries import EvalRecord, JournalRecord, StepRecord
from .lenient import (
    Counts,
    Int,
    JsonObject,
    Num,
    Object,
    OptText,
    SummaryPart,
    Text,
    clean_counts,
    clean_int,
    clean_knobs,
    clean_numbers,
    clean_objects,
    clean_opt_text,
    clean_tools,
    lenient,
    read_from_disk,
)


class Point(SummaryPart):
    """One evaluated design as the summary lists it (initial, best, Pareto, chain bests)."""

    model_config = ConfigDict(frozen=True)

    digest: Text = ""
    key: Text = ""
    label: OptText = None
    move: OptText = None
    recipe: Annotated[dict[str, KnobValue], lenient(clean_knobs)] = Field(default_factory=dict)  # ``Recipe.to_dict()``
    area_um2: Num = None
    delay_ns: Num = None
    power_mw: Num = None
    cost: Num = None
    cells: Int = None
    slack_ns: Num = None
    fmax_mhz: Num = None
    power_fidelity: OptText = None
    proof: OptText = None  # the verdict of the equivalence check that admitted it; None: none ran


Points = Annotated[list[Point], lenient(clean_objects)]


def _entry_proof(x: object) -> str | None:
    """A verdict name (summary.json) or the verdict record itself (a journal's phase1 record)."""
    return proof_kind(x) if isinstance(x, dict) else clean_opt_text(x)


class Phase1Entry(SummaryPart):
    model_config = ConfigDict(frozen=True)

    label: Text = ""
    digest: Text = ""
    origin: OptText = None
    verdict: Text = ""  # "valid" | "invalid"
    gate: OptText = None
    message: Text = ""
    repaired_from: OptText = None
    proof: Annotated[str | None, lenient(_entry_proof)] = None  # against the reference (None: no check ran)


class Phase1Stats(SummaryPart):
    model_config = ConfigDict(frozen=True)

    candidates: int = 0  # initial candidates (repairs not counted)
    valid: int = 0
    repaired: int = 0  # repairs that became valid
    rejected_by_gate: dict[str, int] = Field(default_factory=dict)
    entries: list[Phase1Entry] = Field(default_factory=list)

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

    @model_validator(mode="before")
    @classmethod
    def _rebuild(cls, data: object, info: ValidationInfo) -> object:
        """Read from disk, a count that is missing or not a number is rebuilt from the entries (older or
        damaged summaries)."""
        if not read_from_disk(info):
            return data
        d = as_dict(data)
        entries = [Phase1Entry.read(e) for e in clean_objects(d.get("entries"))]
        derived = cls.of(entries)

        def count(name: str, fallback: int) -> int:
            v = clean_int(d.get(name))
            return fallback if v is None else v

        return {"candidates": count("candidates", derived.candidates), "valid": count("valid", derived.valid),
                "repaired": count("repaired", derived.repaired),
                "rejected_by_gate": clean_counts(d["rejected_by_gate"]) if "rejected_by_gate" in d
                else derived.rejected_by_gate, "entries": entries}


class AcceptedChange(SummaryPart):
    """One accepted Phase-2 RTL change and the equivalence verdict that covers its RTL."""

    model_config = ConfigDict(frozen=True)

    key: Text
    parent: Text
    move: OptText
    verdict: Annotated[str, lenient(lambda v: v if v in PROOF_KINDS else "not checked")]  # one of PROOF_KINDS
    proof_s: Num
    engine: OptText
    proof_seq: Int = None  # the journal record holding the verdict (None: none does)
    digest: Text = ""  # the RTL digests of the change and its parent
    parent_digest: Text = ""
    # against the reference, one of EVIDENCE (None: not recorded)
    evidence: Annotated[str | None, lenient(lambda v: v if v in EVIDENCE else None)] = None

    @model_validator(mode="before")
    @classmethod
    def _absent(cls, data: object, info: ValidationInfo) -> object:
        """Read from disk, a missing key reads as a wrong-typed one (the required keys too)."""
        if not read_from_disk(info):
            return data
        d = as_dict(data)
        return {k: d.get(k) for k in cls.model_fields if k in d or cls.model_fields[k].is_required()}


class ProofStats(SummaryPart):
    """Phase 2's accepted RTL changes counted by equivalence verdict, with the median proof time, and the
    evidence against the reference of every accepted design (RTL digest -> one of EVIDENCE)."""

    model_config = ConfigDict(frozen=True)

    accepted: Annotated[list[AcceptedChange], lenient(clean_objects)] = Field(default_factory=list)
    evidence: Annotated[dict[str, str], lenient(lambda d: {str(k): v for k, v in as_dict(d).items()
                                                        if v in EVIDENCE})] = Field(default_factory=dict)

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

    @model_serializer(mode="wrap")
    def _with_counts(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """The counts derived from ``accepted`` are written before it (read back, they are recomputed)."""
        d: dict[str, object] = handler(self)
        return {"accepted_rtl_changes": len(self.accepted), "by_verdict": self.by_verdict,
                "proven_rate": self.proven_rate, "median_proof_s": self.median_proof_s,
                "accepted": d["accepted"], "evidence": d["evidence"]}

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
            by_pair.setdefault((rtl_part(r.key), rtl_part(r.parent)), r)
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
            holder = own.get(pair) or by_pair.get((rtl_part(pair[0]), rtl_part(pair[1]))) \
                or by_rtl.get(text(st.proposal_digest))
            proof = holder.proof if holder else None
            out.append(AcceptedChange(key=pair[0], parent=pair[1], move=st.move,
                                      verdict=proof_kind(proof), proof_s=num(proof.wall_s) if proof else None,
                                      engine=proof.engine if proof else None,
                                      proof_seq=holder.seq if holder else None,
                                      digest=text(st.proposal_digest), parent_digest=st.parent_digest))
        evidence = evidence_by_design(records, out)
        return cls(accepted=[a.model_copy(update={"evidence": evidence.get(a.digest)}) for a in out],
                   evidence=evidence)

    def evidence_of(self, digest: str) -> str | None:
        """The evidence against the reference of the design with this RTL digest (None: not recorded)."""
        return self.evidence.get(digest)


class Search(SummaryPart):
    """What Phase 2 adds to the summary when it ran (absent with ``anneal.iterations: 0``); summary.json
    holds its keys at the top level."""

    model_config = ConfigDict(frozen=True)

    chains: Int = None
    iterations: Int = None
    iterations_done: Int = None
    chain_best: Annotated[list[Point], lenient(lambda x: [as_dict(p) for p in as_list(x)])] = \
        Field(default_factory=list)
    t0: Num = None
    counters: Object = Field(default_factory=dict)  # ``Counters.to_dict()``
    history: Annotated[list[JsonObject], lenient(lambda x: [as_dict(h) for h in as_list(x)])] = \
        Field(default_factory=list)  # one point per iteration (``search_state.HistoryPoint``)


# the three small sections below write the keys they were given (a summary written before the journal's
# head was known says ``"journal": {}``), and read back keep the keys they had: they are ``JsonRecord``s


class InfraFaults(JsonRecord):
    """Evaluations an infrastructure fault ended (a tool crashed or was killed), and the first one's message."""

    count: Int = None
    first: OptText = None


class JournalHead(JsonRecord):
    """The journal the summary was written with: its record count and last hash (``hh audit`` checks it)."""

    records: Int = None
    head: OptText = None


class LibreLaneMetrics(JsonRecord):
    """The initial and best designs' metrics under LibreLane's names, and which way each is better."""

    initial: Annotated[dict[str, float | int], lenient(clean_numbers)] = Field(default_factory=dict)
    best: Annotated[dict[str, float | int], lenient(clean_numbers)] = Field(default_factory=dict)
    directions: Annotated[dict[str, str], lenient(lambda d: {str(k): v for k, v in as_dict(d).items()
                                                             if isinstance(v, str)})] = Field(default_factory=dict)


SEARCH_KEYS = tuple(Search.model_fields)


def _design_name(x: object) -> str:
    return text(as_dict(x).get("name") if isinstance(x, dict) else x)


def _reproduce(x: object) -> list[str]:
    return [text(c) for c in as_list(x)] or ([x] if isinstance(x, str) else [])


class RunSummary(SummaryPart):
    design: Annotated[str, lenient(_design_name)] = ""
    seed: Int = None
    run_dir: Text = ""
    status: Text = ""  # "complete" | "interrupted" | "no-valid-candidate"; "" when not recorded
    phase1: Phase1Stats = Field(default_factory=Phase1Stats)
    rejected_by_gate: Counts = Field(default_factory=dict)  # both phases
    wall_s: Num = None
    cache_hits: Int = None
    infrastructure_faults: InfraFaults = Field(default_factory=InfraFaults)
    # the client's usage record (``llm.protocol.Usage``; read back, whatever object summary.json holds)
    llm: Annotated[Mapping[str, object], lenient(as_dict)] = Field(default_factory=dict)
    tools: Annotated[dict[str, dict[str, str]], lenient(clean_tools)] \
        = Field(default_factory=dict)  # tool name -> {"version", "path"} or {"error"} (``versions.tool_versions``)
    reproduce: Annotated[list[str], lenient(_reproduce)] = Field(default_factory=list)
    initial: Point | None = None
    best: Point | None = None
    improvement: Num = None
    evaluations: Int = None
    # move name -> ``MoveStats.to_dict()`` and the selector's weight
    moves: Annotated[dict[str, dict[str, float | int]], lenient(lambda d: {str(k): clean_numbers(v)
                                                                       for k, v in as_dict(d).items()})] \
        = Field(default_factory=dict)
    phase2_rejected_by_gate: Counts | None = None  # None: no valid candidate, Phase 2 never started
    pareto: Points = Field(default_factory=list)
    search: Search | None = None
    interrupted_by: OptText = None
    journal: JournalHead | None = None  # None: not yet known (written as {}) or, read back, not recorded
    metrics: LibreLaneMetrics | None = None  # None until written
    proofs: ProofStats | None = None  # None: no valid candidate

    @model_validator(mode="before")
    @classmethod
    def _from_disk(cls, data: object, info: ValidationInfo) -> object:
        """Read from disk: the search's keys are at the top level (Phase 2 ran when ``iterations_done`` is
        there); a section of the wrong type reads as absent."""
        if not read_from_disk(info):
            return data
        d = dict(as_dict(data))
        d["search"] = {k: d[k] for k in SEARCH_KEYS if k in d} if "iterations_done" in d else None
        for k in ("initial", "best", "proofs"):
            if not isinstance(d.get(k), dict):
                d[k] = None
        for k in ("phase1", "infrastructure_faults"):
            d[k] = as_dict(d.get(k))
        d["journal"] = d["journal"] if isinstance(d.get("journal"), dict) else None
        d["metrics"] = as_dict(d["metrics"]) if "metrics" in d else None
        if "phase2_rejected_by_gate" in d and d["phase2_rejected_by_gate"] is None:
            d["phase2_rejected_by_gate"] = {}
        return d

    @model_serializer(mode="wrap")
    def _layout(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """summary.json's key order; the optional sections only when present, the search's keys flat."""
        d: dict[str, object] = handler(self)
        out = {k: d[k] for k in ("design", "seed", "run_dir", "phase1", "rejected_by_gate", "wall_s", "cache_hits",
                                 "infrastructure_faults", "llm", "tools", "reproduce", "status", "initial", "best",
                                 "improvement", "evaluations", "moves")}
        if self.phase2_rejected_by_gate is not None:
            out["phase2_rejected_by_gate"] = d["phase2_rejected_by_gate"]
        out["pareto"] = d["pareto"]
        if self.search is not None:
            out.update(self.search.to_json())
        if self.interrupted_by is not None:
            out["interrupted_by"] = self.interrupted_by
        if self.proofs is not None:
            out["proofs"] = d["proofs"]
        out["journal"] = d["journal"] if self.journal is not None else {}
        if self.metrics is not None:
            out["metrics"] = d["metrics"]
        return out
