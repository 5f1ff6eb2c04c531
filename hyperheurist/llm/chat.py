"""The data the LLM layer passes between its parts: chat messages, sampling parameters, JSON records."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict


class ChatMessage(TypedDict):
    role: str  # system | user | assistant
    content: str


class Sampling(TypedDict):
    """The sampling parameters of one request: with the model and messages, its identity (the cache key)."""

    temperature: float
    seed: int


Build = Callable[[int], list[ChatMessage]]  # trim level -> the request's messages (prompts shortened as it rises)


class Attempt(TypedDict, total=False):
    """One HTTP attempt inside a record (``Exchange`` sets ``attempt`` and ``sent`` first, the rest as it goes)."""

    attempt: int  # 1, 2, ...
    sent: dict[str, object]  # the request's keyword arguments as the OpenAI client got them (an API edge)
    trim: int
    status: int | None  # HTTP status; None: timeout, connection, malformed, stalled
    error: str  # in the server's words
    latency_s: float
    partial: str  # a stream cut short: what had arrived
    adapted: str  # what the profile learned from this attempt's failure
    retry_after_s: float
    wait_s: float
    tokens_in: int
    tokens_out: int
    finish_reason: str | None


class ReplyUsage(TypedDict):
    """A reply's token counts in the OpenAI API's names (``estimated``: counted by hh, the server gave none)."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    estimated: bool


class Record(TypedDict, total=False):
    """One request as written to RUN_DIR/llm/NNNN.json, partly in the server's words. Records read back from
    disk are JSON as written (older runs may lack keys): readers use ``get``."""

    index: int
    time: str
    phase: str
    key: str  # the request's identity: model, messages, sampling
    model: str
    endpoint: str | None
    params: Sampling
    messages: list[ChatMessage]
    source: str  # network | cache | replay | not sent | none
    error: str | None
    finish_reason: str | None
    usage: ReplyUsage | None
    latency_s: float
    attempts: list[Attempt] | None
    trim: int
    sent_messages: list[ChatMessage] | None
    response: str | None
    extracted: dict[str, bool | list[str] | str] | None  # extract.Extracted.to_dict()
