"""PPA: Yosys synthesis onto a liberty, OpenSTA timing, two power fidelities, cost and cache."""

from .cache import PPACache
from .cost import cost
from .metrics import PPAMetrics
from .report import ppa_report_text

__all__ = ["PPACache", "PPAMetrics", "cost", "ppa_report_text"]
