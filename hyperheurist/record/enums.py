"""The closed sets of the run record, as StrEnums: a member is its string, so the JSON is unchanged."""

from __future__ import annotations

from enum import StrEnum

from ..stages.model import StageId


class FailedGate(StrEnum):
    """Why an evaluation is invalid: the stage that failed (StageId), or a tool fault that cut it short."""

    SAFETY = "safety"
    COMPILE = "compile"
    STRUCTURE = "structure"
    SIMULATION = "simulation"
    EQUIVALENCE = "equivalence"
    SYNTHESIS = "synthesis"
    NETLIST_SIM = "netlist_sim"
    STA = "sta"
    POWER = "power"
    INFRASTRUCTURE = "infrastructure"  # a tool fault: says nothing about the design (evaluated again on resume)

    @classmethod
    def of(cls, stage: StageId) -> FailedGate:
        return cls(stage.value)


class StepVerdict(StrEnum):
    """What became of one proposal (a journal step's verdict)."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"
    REJECTED_UNCHECKED = "rejected:unchecked"  # rejected on a known cost before any check
    REJECTED_KNOWN_NETLIST = "rejected:known-netlist"  # a recipe change to a netlist seen for this RTL
    NOT_APPLICABLE = "not-applicable"  # no move had a proposal
    INVALID_SAFETY = "invalid:safety"
    INVALID_COMPILE = "invalid:compile"
    INVALID_STRUCTURE = "invalid:structure"
    INVALID_SIMULATION = "invalid:simulation"
    INVALID_EQUIVALENCE = "invalid:equivalence"
    INVALID_SYNTHESIS = "invalid:synthesis"
    INVALID_NETLIST_SIM = "invalid:netlist_sim"
    INVALID_STA = "invalid:sta"
    INVALID_POWER = "invalid:power"
    INVALID_INFRASTRUCTURE = "invalid:infrastructure"
    INVALID_UNSCORED = "invalid:unscored"
    INVALID_UNKNOWN = "invalid:unknown"

    @classmethod
    def invalid(cls, gate: str) -> StepVerdict:
        """The verdict of a proposal that failed gate (a FailedGate, "unscored" or "unknown")."""
        return cls(f"invalid:{gate}")


class ProofKind(StrEnum):
    """The four verdicts of an equivalence check (formal.verdict)."""

    PROVEN = "proven"
    BOUNDED = "bounded"
    REFUTED = "refuted"
    INCONCLUSIVE = "inconclusive"


class Validity(StrEnum):
    """A Phase-1 record's verdict."""

    VALID = "valid"
    INVALID = "invalid"


class Phase(StrEnum):
    """Which part of the search wrote a step (annealing steps have no phase key)."""

    POLISH = "polish"
