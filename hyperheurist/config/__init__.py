"""design.yaml: the typed, validated description of one benchmark.

Validated once here (pydantic, unknown keys rejected, paths resolved relative to the YAML file);
everything inward receives a ``DesignConfig``. Errors become one ``ConfigError`` line naming the
file and the field. One module per section: ``interface``, ``verification``, ``ppa``, ``generation``,
``search`` (anneal, tunables), ``limits``; ``design`` is the root, ``loader`` reads the YAML.
"""

from __future__ import annotations

from .design import DesignConfig
from .generation import Generation, ModelProfile, RunBudget
from .interface import Clock, Interface, Port, Reset
from .limits import Limits
from .loader import format_validation_error, load_design, parse_override, read_yaml_mapping
from .ppa import BUNDLED_LIBERTIES, FLOWS_DIR, PPA, Weights
from .search import Anneal, Tunable
from .verification import Differential, Equivalence, Verification

__all__ = [
    "BUNDLED_LIBERTIES", "FLOWS_DIR", "PPA", "Anneal", "Clock", "DesignConfig", "Differential", "Equivalence",
    "Generation", "Interface", "Limits", "ModelProfile", "Port", "Reset", "RunBudget", "Tunable", "Verification",
    "Weights", "format_validation_error", "load_design", "parse_override", "read_yaml_mapping",
]
