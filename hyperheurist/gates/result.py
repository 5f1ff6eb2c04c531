"""Gate verdicts: one ``GateResult`` per gate, a ``GateReport`` for the chain."""

from __future__ import annotations

from dataclasses import dataclass, field

GATES = ("safety", "compile", "structure", "simulation", "equivalence")
MESSAGE_LIMIT = 300


def short(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """One line, bounded: the message goes into an LLM repair prompt and a CI log."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class GateResult:
    gate: str
    passed: bool
    message: str
    details: dict = field(default_factory=dict)
    wall_s: float = 0.0
    skipped: bool = False

    def to_dict(self) -> dict:
        return {"gate": self.gate, "passed": self.passed, "skipped": self.skipped, "message": self.message,
                "details": self.details, "wall_s": round(self.wall_s, 4)}


@dataclass(frozen=True)
class GateReport:
    results: tuple[GateResult, ...]

    @property
    def failed(self) -> GateResult | None:
        """The first gate that ran and failed."""
        return next((r for r in self.results if not r.passed and not r.skipped), None)

    @property
    def passed(self) -> bool:
        return self.failed is None

    def to_dict(self) -> dict:
        f = self.failed
        return {
            "passed": self.passed,
            "failed_gate": f.gate if f else None,
            "message": f.message if f else "all gates passed",
            "results": [r.to_dict() for r in self.results],
            "wall_s": round(sum(r.wall_s for r in self.results), 4),
        }


def passed(gate: str, message: str, wall_s: float = 0.0, **details) -> GateResult:
    return GateResult(gate, True, short(message), details, wall_s)


def failed(gate: str, message: str, wall_s: float = 0.0, **details) -> GateResult:
    return GateResult(gate, False, short(message), details, wall_s)


def skipped(gate: str, message: str) -> GateResult:
    """Not applicable (nothing configured) or not run (an earlier gate failed); never a failure."""
    return GateResult(gate, True, short(message), {}, 0.0, skipped=True)
