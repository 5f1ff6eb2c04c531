"""What the flow and the moves need from an LLM: one ``typing.Protocol``.

``LLMClient`` (live, replaying, or answering from a run's own records) satisfies it, and so does any
test stub with these members; callers hold an ``LLM | None`` (None: the run is offline, candidates
come from seed files only) and never probe for members.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypedDict, runtime_checkable

if TYPE_CHECKING:
    from ..candidate import Candidate
    from ..config import DesignConfig
    from ..ppa.metrics import PPAJson
    from .rules import RuleMemory



class RequestFailure(TypedDict):
    phase: str  # generate, repair, critique, ...
    error: str  # in the server's words


class Counts(TypedDict, total=False):
    """What happened to the run's requests besides being sent (``LLMClient`` sets every key)."""

    cache_hits: int
    replayed: int
    failed_requests: int
    no_code: int
    critique_rejected: int
    replay_misses: int
    duplicate_answers: int


class Usage(Counts, total=False):
    """The usage record summary.json carries (``llm``): the budget's figures, the counts, where the
    requests went and, when some failed, the first failures in the server's words and a note (keys in
    this order: the budget's, then the counts, then the rest)."""

    requests: int
    tokens: int
    tokens_in: int
    tokens_out: int
    tokens_by_phase: dict[str, int]
    requests_by_phase: dict[str, int]
    cost: float  # when priced
    model: str | None
    endpoint: str | None
    mode: str  # live | replay | records
    records: str  # the folder of the request records
    profile: object  # ``Profile.to_json()``, secrets scrubbed
    failures: list[RequestFailure]
    note: str  # why the LLM was disabled, or how many requests failed
    key_refused: bool


class Failure(Protocol):
    """A gate's rejection, as a repair request reads it."""

    @property
    def gate(self) -> str: ...

    @property
    def message(self) -> str: ...


@runtime_checkable
class LLM(Protocol):
    """The roles an LLM plays in a run. A role that gets no usable code returns None (or no candidates);
    ``LLMUnavailable`` means the endpoint is gone for good, after which ``available`` is False."""

    @property
    def available(self) -> bool: ...

    @property
    def critique_enabled(self) -> bool: ...

    def attach(self, rules: RuleMemory | None = None, say: Callable[[str], None] | None = None) -> None:
        """Give the client the run's rule memory and a way to tell the user things."""

    def generate(self, design: DesignConfig, n: int, rules: RuleMemory | None) -> list[Candidate]:
        """Up to ``n`` Phase-1 candidates."""

    def repair(self, design: DesignConfig, candidate: Candidate, failure: Failure,
               rules: RuleMemory | None) -> Candidate | None:
        """A fixed ``candidate`` given the failing gate's message."""

    def mutate(self, design: DesignConfig, candidate: Candidate, metrics: PPAJson | None, goal: str, scope: str,
               seed: int, move: str, rules: RuleMemory | None = None) -> Candidate | None:
        """A PPA-directed rewrite toward ``goal`` (area, timing, power)."""

    def critique(self, design: DesignConfig, parent: Candidate, proposal: Candidate, metrics: PPAJson | None,
                 goal: str) -> bool:
        """Whether ``proposal`` is worth evaluating."""

    def usage(self) -> Usage:
        """Requests, tokens and cost spent, counters, and a note saying why the LLM stopped, if it did."""
