"""Errors of the LLM layer."""

from __future__ import annotations

from ..errors import HHError


class LLMUnavailable(HHError):
    """The endpoint cannot be used any more (down, budget spent, bad key); the run goes on without it."""
