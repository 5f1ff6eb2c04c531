"""Pipelines as data: which declared stages run, in which order. Above ``gates`` and ``ppa`` (whose stages it
lists) and ``stages`` (the model they are built on), so none of them imports another back.

- ``GATE_PIPELINE`` (``hh gate``, ``hh audit``): the gates, and "synthesizes" as Yosys' generic synthesis, whose
  netlist ``netlist_sim`` simulates beside the RTL;
- ``PPA_PIPELINE`` (``hh ppa``, ``estimate``): the canonical design, synthesis onto the liberty, the scored
  netlist simulated beside the RTL (``netlist_sim``), STA, power;
- ``EVAL_PIPELINE`` (one evaluation of ``hh run``): the gates, then the PPA stages, the liberty synthesis
  being the synthesis verdict.
"""

from __future__ import annotations

from .gates.compile import CompileStage
from .gates.equivalence import EquivalenceStage
from .gates.netlist_sim import NetlistSimStage
from .gates.simulation import SimulationStage
from .gates.structure import StructureStage
from .gates.synthesis import GenericSynthesisStage
from .gates.vetting import SafetyStage
from .ppa.activity import PowerStage
from .ppa.sta import StaStage
from .ppa.synth import SynthesisStage
from .stages.model import Stage

CHECKS: tuple[Stage, ...] = (SafetyStage(), CompileStage(), StructureStage(), SimulationStage(), EquivalenceStage())
GATE_PIPELINE: tuple[Stage, ...] = (*CHECKS, GenericSynthesisStage(), NetlistSimStage())
PPA_STAGES: tuple[Stage, ...] = (SynthesisStage(), NetlistSimStage(), StaStage(), PowerStage())
PPA_PIPELINE: tuple[Stage, ...] = (SafetyStage(), *PPA_STAGES)
EVAL_PIPELINE: tuple[Stage, ...] = (*CHECKS, *PPA_STAGES)
