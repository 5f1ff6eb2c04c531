"""Per-run LLM budget: requests, tokens and (when prices are configured) cost, counted per phase."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..config import Generation
from .chat import Record
from .errors import LLMUnavailable
from .protocol import Usage

PHASES = ("generate", "repair", "mutate", "critique")


@dataclass
class Budget:
    """Counts what the endpoint has been asked for; ``check`` refuses a request once a limit is reached.

    A request is refused *before* it is sent, so a run overshoots the token limit by at most the
    responses in flight; the request limit is exact (slots are reserved).
    """

    limit_requests: int  # generation.budget.requests
    limit_tokens: int  # generation.budget.tokens
    limit_cost: float | None = None  # generation.budget.cost
    price_in: float | None = None  # per million prompt tokens
    price_out: float | None = None  # per million completion tokens
    requests: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    per_phase: dict[str, dict[str, int]] = field(default_factory=dict)
    pending: int = 0  # reserved by requests in flight, not yet charged

    @classmethod
    def from_config(cls, gen: Generation) -> Budget:
        b = gen.budget
        return cls(b.requests, b.tokens, b.cost, gen.price_per_mtok_in, gen.price_per_mtok_out)

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out

    @property
    def cost(self) -> float | None:
        if self.price_in is None and self.price_out is None:
            return None
        return (self.tokens_in * (self.price_in or 0.0) + self.tokens_out * (self.price_out or 0.0)) / 1e6

    def exhausted(self) -> str | None:
        """Why no further request may be sent, or None."""
        if self.requests + self.pending >= self.limit_requests:
            return (f"LLM budget spent: {self.requests + self.pending} of {self.limit_requests} requests "
                    "(generation.budget.requests)")
        if self.tokens >= self.limit_tokens:
            return f"LLM budget spent: {self.tokens} of {self.limit_tokens} tokens (generation.budget.tokens)"
        cost = self.cost
        if self.limit_cost is not None and cost is not None and cost >= self.limit_cost:
            return f"LLM budget spent: cost {cost:.4f} of {self.limit_cost:g} (generation.budget.cost)"
        return None

    def check(self) -> None:
        reason = self.exhausted()
        if reason:
            raise LLMUnavailable(reason)

    def reserve(self) -> None:
        """Check, then hold a request slot until ``charge`` (so concurrent requests cannot overshoot)."""
        self.check()
        self.pending += 1

    def charge(self, phase: str, tokens_in: int, tokens_out: int) -> None:
        """Count one request that reached the endpoint (even a failed one costs a request)."""
        self.pending = max(0, self.pending - 1)
        self.requests += 1
        self.tokens_in += tokens_in
        self.tokens_out += tokens_out
        p = self.per_phase.setdefault(phase, {"requests": 0, "tokens": 0})
        p["requests"] += 1
        p["tokens"] += tokens_in + tokens_out

    def restore(self, records: list[Record]) -> None:
        """Count the requests a resumed run already sent (its ``llm/`` records), so limits hold per run."""
        for rec in records:
            if rec.get("source") != "network":
                continue
            for a in rec.get("attempts") or [{}]:
                self.charge(str(rec.get("phase", "generate")), int(a.get("tokens_in", 0)), int(a.get("tokens_out", 0)))

    def usage(self) -> Usage:
        """requests, tokens (in/out), tokens_by_phase and requests_by_phase over every phase, cost when priced."""
        out = Usage(requests=self.requests, tokens=self.tokens, tokens_in=self.tokens_in, tokens_out=self.tokens_out,
                    tokens_by_phase={ph: self.per_phase.get(ph, {}).get("tokens", 0) for ph in PHASES},
                    requests_by_phase={ph: self.per_phase.get(ph, {}).get("requests", 0) for ph in PHASES})
        if self.cost is not None:
            out["cost"] = round(self.cost, 6)
        return out
