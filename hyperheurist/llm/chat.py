"""The data the LLM layer passes between its parts: chat messages, sampling parameters, JSON records."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict


class ChatMessage(TypedDict):
    role: str  # system | user | assistant
    content: str


class Sampling(TypedDict):
    """The sampling parameters of one request: with the model and messages, its identity (the cache key)."""

    temperature: float
    seed: int


Build = Callable[[int], list[ChatMessage]]  # trim level -> the request's messages (prompts shortened as it rises)
Record = dict[str, Any]  # one request as written to RUN_DIR/llm/NNNN.json: JSON, partly in the server's words
Attempt = dict[str, Any]  # one HTTP attempt inside a record: what was sent, status, latency, tokens, error
