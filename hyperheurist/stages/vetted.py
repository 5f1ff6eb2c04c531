"""The safety stage's output value, read by every later stage (gates and PPA alike) from the stage context."""

from __future__ import annotations

from dataclasses import dataclass

from ..candidate import Candidate
from ..hdl.canonical import Canonical


@dataclass(frozen=True)
class Vetted:
    """The safety stage's output: the candidate's canonical text and the golden side made canonical."""

    canonical: Canonical
    golden: Candidate | None
