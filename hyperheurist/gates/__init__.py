"""Phase-1 gates: is this RTL functionally valid? See ``chain.run_gates`` and ``hh gate``."""

from .chain import default_golden, run_gates
from .result import GATES, GateReport

__all__ = ["GATES", "GateReport", "default_golden", "run_gates"]
