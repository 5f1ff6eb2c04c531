"""Errors of the LLM layer."""

from __future__ import annotations

from ..errors import HHError


class LLMUnavailable(HHError):
    """The endpoint cannot be used any more (down, budget spent, bad key, replay miss); the run goes on without it."""


class RequestFailed(HHError):
    """One request failed in a way that says nothing about the endpoint (e.g. HTTP 400); that role returns None."""
