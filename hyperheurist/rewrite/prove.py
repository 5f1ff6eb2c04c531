"""Proving a rewrite equal to its parent: the equivalence gate's check (``formal.check``) run in a folder.

The same miter, engines, crash rule and counterexample replay as the equivalence gate (one plan,
``formal.check.Check``); here the parent's modules are renamed (``hhref_``) to sit beside the child's,
and the plan's tool runs are served as a stage's are (``stages.serve``), in ``folder``, outside any
pipeline. A rewrite is accepted only when it is ``proven``: "no difference within N cycles" is recorded,
never accepted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..config import Interface
from ..formal.check import Check, CheckJob, Side
from ..formal.miter import MiterSpec
from ..formal.verdict import Verdict
from ..hdl.rename import declared_names, prefix_names
from ..jsonio import write_text_atomic
from ..stages.model import Invocation, Reply, Request
from ..stages.serve import ToolSite, drive

PREFIX = "hhref_"  # the parent's modules, renamed so they sit beside the child's in one miter and one bench
PROVE_MEM_MB = 4096  # the parent/child pairs are small: this is a backstop, not a budget
GOLD, GATE = "parent/parent.v", "child/child.v"


@dataclass(frozen=True)
class ProofTask:
    """A child design to prove against its parent: sources as text, the top module, the interface
    (clock, reset and ports as in design.yaml) and the reset sequence of the miter."""

    parent: str
    child: str
    top: str
    iface: Interface
    depth: int = 12  # cycles after the reset sequence that bmc3 searches when no unbounded proof comes
    timeout_s: float = 120.0  # one cap on the whole check (then inconclusive)
    reset_cycles: int = 2
    reset_inputs: dict[str, int] = field(default_factory=dict)
    compare_when: dict[str, str] = field(default_factory=dict)


def accepted(v: Verdict) -> bool:
    """A rewrite stands only on a real proof."""
    return v.kind == "proven"


def proof(task: ProofTask) -> Check:
    """The check of ``task``: the parent renamed beside the child, compared from the reset sequence."""
    spec = MiterSpec(iface=task.iface, gold_top=PREFIX + task.top, gate_top=task.top, reset_cycles=task.reset_cycles,
                     reset_inputs=dict(task.reset_inputs), compare_when=dict(task.compare_when))
    parent = prefix_names(task.parent, declared_names(task.parent), PREFIX)
    return Check(CheckJob(spec, Side((GOLD,), "parent", "parent"), Side((GATE,), "child", "child"),
                          files={GOLD: parent, GATE: task.child}, depth=task.depth, timeout_s=task.timeout_s))


def prove_rewrite(task: ProofTask, folder: Path) -> Verdict:
    """Prove ``task.child`` equal to ``task.parent``; the tools' files and logs go to ``folder``."""
    folder = Path(folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    site = ToolSite(folder, (), 60.0, PROVE_MEM_MB, "required", "a rewrite proof")
    check = proof(task)

    def serve(request: Request) -> Reply:
        if not isinstance(request, Invocation):
            raise TypeError(f"a proof runs tools, not {type(request).__name__}")
        return site.serve(request, folder)

    v = drive(check.plan(), serve)
    for name, text in check.files.items():
        write_text_atomic(folder / name, text)
    v.golden = "its parent"
    return v
