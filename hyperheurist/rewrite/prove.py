"""Proving a rewrite equal to its parent: the equivalence gate's check, set up and run by ``formal.driver``.

The same miter, engines, crash rule and counterexample replay as the equivalence gate (one plan,
``formal.check.Check``), bounded the same way (``formal.driver.check_job``: depth, CPU budget and engine from
``verification.equivalence``) and served under the same limits (``limits.tool_timeout_s``, ``tool_mem_mb``,
``sandbox``); here the parent's modules are renamed (``hhref_``) to sit beside the child's and the tools run
in ``folder``, outside any pipeline. A rewrite is accepted only when it is ``proven``: "no difference within
N cycles" is recorded, never accepted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..config import DesignConfig, Equivalence, Interface, Limits, Verification
from ..formal.check import Check, Side
from ..formal.driver import Bounds, check_job, prove_in
from ..formal.miter import MiterSpec
from ..formal.verdict import Verdict
from ..hdl.rename import declared_names, prefix_names

PREFIX = "hhref_"  # the parent's modules, renamed so they sit beside the child's in one miter and one bench
GOLD, GATE = "parent/parent.v", "child/child.v"


@dataclass(frozen=True)
class ProofTask:
    """A child design to prove against its parent: sources as text, the top module, the interface (clock, reset
    and ports as in design.yaml), the design's ``verification.equivalence`` (depth, CPU budget, engine, reset
    sequence) and ``limits``; ``depth``/``timeout_s`` override the equivalence settings' when given.
    ``for_design`` takes all of them from a loaded design.yaml."""

    parent: str
    child: str
    top: str
    iface: Interface
    depth: int | None = None  # cycles after the reset sequence that bmc3 searches (None: equivalence.depth)
    timeout_s: float | None = None  # CPU budget of the whole check (None: equivalence.timeout_s)
    equivalence: Equivalence = field(default_factory=Equivalence)
    limits: Limits = field(default_factory=Limits)
    sim_timeout_s: float = Verification.model_fields["timeout_s"].default  # the counterexample replay's wall clock

    @classmethod
    def for_design(cls, parent: str, child: str, design: DesignConfig, depth: int | None = None,
                   timeout_s: float | None = None) -> ProofTask:
        return cls(parent, child, design.top, design.interface, depth, timeout_s, design.verification.equivalence,
                   design.limits, design.verification.timeout_s)

    def bounds(self) -> Bounds:
        over = {k: v for k, v in (("depth", self.depth), ("timeout_s", self.timeout_s)) if v is not None}
        return Bounds(self.equivalence.model_copy(update=over), self.limits, self.sim_timeout_s)


def accepted(v: Verdict) -> bool:
    """A rewrite stands only on a real proof."""
    return v.kind == "proven"


def proof(task: ProofTask) -> Check:
    """The check of ``task``: the parent renamed beside the child, compared from the reset sequence."""
    eq = task.equivalence
    spec = MiterSpec(iface=task.iface, gold_top=PREFIX + task.top, gate_top=task.top, reset_cycles=eq.reset_cycles,
                     reset_inputs=dict(eq.reset_inputs), compare_when=dict(eq.compare_when))
    parent = prefix_names(task.parent, declared_names(task.parent), PREFIX)
    return Check(check_job(spec, Side((GOLD,), "parent", "parent"), Side((GATE,), "child", "child"),
                           {GOLD: parent, GATE: task.child}, task.bounds()))


def prove_rewrite(task: ProofTask, folder: Path) -> Verdict:
    """Prove ``task.child`` equal to ``task.parent``; the tools' files and logs go to ``folder``."""
    v = prove_in(proof(task), folder, task.limits, "a rewrite proof")
    v.golden = "its parent"
    return v
