"""Phase-1 gates: is this RTL functionally valid? See ``hyperheurist.gating.run_gates`` and ``hh gate``."""

from .result import GATES, GateReport

__all__ = ["GATES", "GateReport"]
