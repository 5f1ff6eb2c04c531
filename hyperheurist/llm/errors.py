"""Errors of the LLM layer."""

from __future__ import annotations

from typing import Any

from ..errors import HHError


class LLMError(HHError):
    """A request that did not give a reply; ``attempts`` are the HTTP attempts it made (None: none was sent)."""

    def __init__(self, message: str, attempts: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.attempts = attempts


class LLMUnavailable(LLMError):
    """The endpoint cannot be used any more (down, budget spent, bad key, replay miss); the run goes on without it."""


class RequestFailed(LLMError):
    """One request failed in a way that says nothing about the endpoint (e.g. HTTP 400); that role returns None."""
