"""The evidence chain of a run's designs: which check proves which RTL, and what each design's function
rests on against the reference (proven, bounded, or simulated only), from the journal's records.

``record.summary`` reports these in summary.json (``proofs``); the report's lineage reads them too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..jsonio import as_dict, text
from .entries import EvalRecord, JournalRecord, Phase1Record
from .enums import Validity
from .proof import Proof

if TYPE_CHECKING:
    from .summary import AcceptedChange

Checked = Phase1Record | EvalRecord  # a journal record that may hold an equivalence proof
PROOF_KINDS = ("proven", "bounded", "refuted", "inconclusive", "not checked")
# what a design's function rests on, against the reference, strongest first: an unbroken chain of proofs
# from a Phase-1 design proven against the reference; a chain with a bounded link; simulation only
EVIDENCE = ("proven", "bounded", "simulated only")


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


def rtl_part(key: object) -> str:
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
