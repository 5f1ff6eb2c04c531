"""``hh run``: Phase 1 (candidates through the gates, LLM repair) then Phase 2 (annealing).

The run directory is the record; the journal makes the run resumable. Tool work happens in a worker
pool; scoring, acceptance and bookkeeping happen in this process.

- ``session``: the run directory (lock), stop flag, journal, worker pool and counters;
- ``phase1``: candidates, gates, repair; ``phase2``: the annealer's batch evaluator and scorer;
- ``record.summary``: the typed RunSummary (summary.json) the report reads too; ``outputs``: files written.
"""

from __future__ import annotations

from ..record.summary import RunSummary
from .driver import run
from .phase2 import Scorer
from .preflight import known_move_names, preflight
from .session import RunOptions

__all__ = ["RunOptions", "RunSummary", "Scorer", "known_move_names", "preflight", "run"]
