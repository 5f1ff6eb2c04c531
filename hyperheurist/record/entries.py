"""The journal's records, one model per ``type``, and ``parse_record``, the one place a line becomes one.

Every record ends with the hash chain's keys (``run``, ``seq``, ``prev``, ``hash``; ``journal.py`` adds
them). ``JournalRecord`` is the union a reader matches on (``match rec: case StepRecord(): ...``)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, JsonValue, TypeAdapter

from .base import CHAIN, READ, JsonRecord
from .enums import FailedGate, Phase, StepVerdict, Validity
from .evaluation import EVALUATION_KEYS, EvaluationRecord
from .proof import Proof


class Chained(JsonRecord):
    """The hash chain's keys (None until ``journal.Journal`` writes the record)."""

    run: str | None = None
    seq: int | None = None
    prev: str | None = None
    hash: str | None = None

    def key_order(self) -> tuple[str, ...]:
        own = self.ORDER or tuple(k for k in type(self).model_fields if k not in CHAIN and k != "type")
        return ("type", *(k for k in own if k != "type"), *CHAIN)

    def model_post_init(self, context: Any, /) -> None:
        self.model_fields_set.add("type")  # the discriminator is always written, also when it was defaulted


class StartRecord(Chained):
    """Line 0: the run, and the resolved.yaml it started with (``journal.verify`` checks its digest)."""

    type: Literal["start"] = "start"
    design: str | None = None
    seed: int | None = None
    resolved_sha256: str | None = None


class Phase1Record(Chained):
    """One Phase-1 candidate through the gates: its verdict, evaluation and gate report."""

    type: Literal["phase1"] = "phase1"
    key: str
    digest: str = ""
    label: str = ""
    origin: str = ""
    repaired_from: str | None = None
    verdict: Validity = Validity.INVALID
    gate: FailedGate | None = None
    message: str = ""
    evaluation: EvaluationRecord
    gates: dict[str, JsonValue] | None = None  # GateReport.to_dict() (a JSON edge)
    proof: Proof | None = None
    duplicates: list[str] | None = None  # labels of identical candidates merged into this one


class EvalRecord(EvaluationRecord, Chained):
    """One Phase-2 evaluation of a state against its parent (``parent`` None: no parent)."""

    ORDER: ClassVar[tuple[str, ...]] = ("digest", "recipe", "parent", *EVALUATION_KEYS)
    type: Literal["eval"] = "eval"
    digest: str = ""
    recipe: dict[str, JsonValue] = Field(default_factory=dict)  # Recipe.to_dict()
    parent: str | None = None

    def evaluation_record(self) -> EvaluationRecord:
        return EvaluationRecord.model_validate({k: getattr(self, k) for k in EVALUATION_KEYS})


# the key order of a polish step as the greedy finish has always written it
POLISH_ORDER = ("type", "phase", "chain", "iteration", "temperature", "move", "not_applicable", "parent",
                "parent_digest", "proposal", "proposal_digest", "verdict", "cost", "current_cost", "best_cost",
                "global_best_cost", "accepted", "improved", "reheated", "restarted", "memo", "composed",
                "unchecked", "delta", *CHAIN)


class StepRecord(Chained):
    """One proposal judged: by a chain (annealing) or by the greedy finish (``phase`` "polish", ``chain`` None).

    A step with no proposal (``verdict`` not-applicable) has no ``composed``/``unchecked``/``delta``/``credit``
    keys; ``delta`` and ``probability`` are written when a cost difference was judged."""

    type: Literal["step"] = "step"
    phase: Phase | None = None
    chain: int | None = None
    iteration: int = 0
    temperature: float | int | None = None
    move: str | None = None  # a move's name (moves are registered by the flow: an open set)
    not_applicable: list[str] = Field(default_factory=list)
    parent: str = ""
    parent_digest: str = ""
    proposal: str | None = None
    proposal_digest: str | None = None
    verdict: StepVerdict = StepVerdict.NOT_APPLICABLE
    cost: float | int | None = None
    current_cost: float | int | None = None
    best_cost: float | int | None = None
    accepted: bool = False
    improved: bool = False
    reheated: bool = False
    memo: bool = False
    composed: bool = False
    unchecked: bool = False
    delta: float | int | None = None
    probability: float | int | None = None
    credit: float | int = 0.0
    restarted: bool = False
    global_best_cost: float | int | None = None

    def key_order(self) -> tuple[str, ...]:
        return POLISH_ORDER if self.phase == Phase.POLISH else super().key_order()


class EndRecord(Chained):
    """The last line of a run that ended (completed, interrupted, or without a valid design)."""

    type: Literal["end"] = "end"
    status: str = ""
    best_cost: float | int | None = None


JournalRecord = Annotated[StartRecord | Phase1Record | EvalRecord | StepRecord | EndRecord,
                          Field(discriminator="type")]
_ADAPTER: TypeAdapter[JournalRecord] = TypeAdapter(JournalRecord)


def parse_record(data: object) -> JournalRecord:
    """One journal line's JSON as its typed record; pydantic's ValidationError (a ValueError) when it is none."""
    return _ADAPTER.validate_python(data, context={READ: True})
