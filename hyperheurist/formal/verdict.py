"""The four verdicts of an equivalence check and the policy that decides which ones pass.

- ``proven``: equal for every input sequence from the reset state (unbounded, or a full
  combinational proof);
- ``bounded``: no difference within ``depth`` cycles after reset (no unbounded proof);
- ``refuted``: a counterexample that Icarus reproduces (inputs per cycle, differing outputs);
- ``inconclusive``: no verdict (budget spent, solver and simulator disagree, engine failure), with why.

A ``bounded`` or ``inconclusive`` verdict reached after the wall clock stopped a run before its budget was
spent carries ``cut`` (which runs): it says how busy the machine was, not what the design is, so callers
treat it as a tool fault (retried on resume), never as a verdict on the design.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypedDict

Kind = Literal["proven", "bounded", "refuted", "inconclusive"]
KINDS: tuple[str, ...] = ("proven", "bounded", "refuted", "inconclusive")
POLICIES = {"proven": ("proven",), "proven_or_bounded": ("proven", "bounded")}


class CexCycle(TypedDict):
    """One cycle of a counterexample, counted from the end of reset: each input port's value in hex."""

    cycle: int
    inputs: dict[str, str]


@dataclass
class Verdict:
    kind: Kind
    engine: str  # e.g. "abc &cec", "abc pdr", "yosys sat -enable_undef"
    mode: str  # "combinational" | "sequential"
    reason: str = ""  # inconclusive: why; refuted: the difference; bounded: the depth reached
    depth: int | None = None  # cycles after reset searched (sequential)
    counterexample: list[CexCycle] = field(default_factory=list)
    wall_s: float = 0.0
    files: dict[str, str] = field(default_factory=dict)  # name -> path relative to the stage folder
    golden: str = "the reference"  # what the candidate was compared with (Phase 2: its parent)
    cut: str = ""  # the runs the wall clock stopped before their budget was spent (see the module docstring)

    def accepted(self, policy: str) -> bool:
        return self.kind in POLICIES[policy]

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"verdict": self.kind, "engine": self.engine, "mode": self.mode, "reason": self.reason,
               "depth": self.depth}
        if self.counterexample:
            out["counterexample"] = self.counterexample
        if self.files:
            out["files"] = self.files
        if self.cut:
            out["cut"] = self.cut
        return out

    def summary(self) -> str:
        """One line for the gate message, the JUnit case, the report and the journal."""
        how = f"{self.engine}, {self.mode}"
        if self.kind == "proven":
            scope = "full proof" if self.mode == "combinational" else "unbounded proof from reset"
            return f"proven equivalent to {self.golden} ({scope}; {how})"
        if self.kind == "bounded":
            why = f": {self.reason}" if self.reason else ""
            return f"bounded: no difference within {self.depth} cycles after reset, no unbounded proof ({how}){why}"
        if self.kind == "refuted":
            return f"not equivalent: {self.reason} ({how})"
        return f"equivalence inconclusive: {self.reason} ({how})"
