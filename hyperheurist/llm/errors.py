"""Errors of the LLM layer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import EXIT_USAGE, HHError

if TYPE_CHECKING:
    from .chat import Attempt

KEY_VAR = "OPENAI_API_KEY"  # where hh reads the endpoint's key (never printed, only named)


class LLMError(HHError):
    """A request that did not give a reply; ``attempts`` are the HTTP attempts it made (None: none was sent)."""

    def __init__(self, message: str, attempts: list[Attempt] | None = None) -> None:
        super().__init__(message)
        self.attempts = attempts


class LLMUnavailable(LLMError):
    """The endpoint cannot be used any more (down, budget spent, bad key, replay miss); the run goes on without it."""


class KeyRefused(LLMUnavailable):
    """401/403: the endpoint refused the key (or wants one): a configuration error, exit 2."""

    exit_code = EXIT_USAGE


def key_refused(url: str | None, keyed: bool, status: int | None, said: str) -> str:
    """The message for a refused key: the endpoint and the variable, never the key's value."""
    where = url or "https://api.openai.com/v1"
    what = f"check {KEY_VAR}" if keyed else f"{KEY_VAR} is not set"
    return f"{where} refused the API key (HTTP {status}: {said}): {what}"


class RequestFailed(LLMError):
    """One request failed in a way that says nothing about the endpoint (e.g. HTTP 400); that role returns None."""
