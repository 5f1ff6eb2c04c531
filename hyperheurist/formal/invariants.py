"""Sequential invariants of one design, by induction: registers constant from reset, and pairs of registers
equal in every reachable state.

A claim is one such fact (``R == C`` or ``R1 == R2``). ``plan`` checks a batch of them on the design itself:
a harness (``hh_inv``) instantiates the top, drives the reset sequence the equivalence check uses (every
reset held for ``reset_cycles`` cycles, data inputs at their ``reset_inputs``; registers the sequence does
not set start free), and raises one output per claim when the claim fails after that sequence. Yosys
flattens it, ties each claim's register to a harness wire (``connect -set`` on the flattened names, so no
hierarchical reference and no edit of the design) and writes the AIGER; ABC's PDR (IC3: it finds the
strengthening invariant itself, e.g. a counter's bound behind an overflow flag that can never be set)
decides every output (``pdr -a``); when some stay undecided, each one not refuted is tried alone.

Sound in one direction only: a failure anywhere (a name Yosys does not find, an undriven wire, a crash, a
budget spent) leaves a claim unproven, never proven. What is proven here only picks the rewrites worth
proposing: the evaluation still proves every child against its parent (``rewrite.prove``, the gate).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path

from ..config import Interface
from ..stages.model import Invocation, Reply, Request, call
from ..stages.serve import ToolSite, drive
from .abc import wall_backstop

HARNESS, SCRIPT, AIG, AIM = "hh_inv.v", "hh_inv.ys", "hh_inv.aig", "hh_inv.aim"
DUT = "hh_dut"
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ASSERTED = re.compile(r"Output\s+(\d+) was asserted in frame")
UNDECIDED = re.compile(r"Undecided = (\d+)")
MEM_MB = 4096


@dataclass(frozen=True)
class Claim:
    """``reg`` (``width`` bits) equals the constant ``value``, or the register ``other``, after reset."""

    reg: str
    width: int
    value: int | None = None
    other: str | None = None

    def describe(self) -> str:
        return f"{self.reg} == {self.other}" if self.other else f"{self.reg} == {self.width}'d{self.value}"


@dataclass(frozen=True)
class InvariantJob:
    """The design (its files as text), its top, its interface and reset sequence, the claims, the budget."""

    files: dict[str, str]
    top: str
    iface: Interface
    claims: tuple[Claim, ...]
    reset_cycles: int = 2
    reset_inputs: dict[str, int] = field(default_factory=dict)
    cpu_s: float = 10.0  # the PDR run over every claim; each claim tried alone gets a quarter of it


def checkable(job: InvariantJob) -> bool:
    """A clocked design with one reset, lockstep clocks and plain names: the harness can state its claims."""
    iface = job.iface
    names = [c.reg for c in job.claims] + [c.other for c in job.claims if c.other]
    return bool(job.claims) and iface.sequential and iface.reset is not None and iface.lockstep_clocks \
        and all(NAME.match(n) for n in names) and all(c.width >= 1 for c in job.claims)


def harness(job: InvariantJob) -> str:
    """The module ``hh_inv``: the reset sequence around the top, one output ``hh_p<k>`` per claim."""
    iface, r = job.iface, job.reset_cycles
    ins = [p for p in iface.all_ports() if p.dir == "input"]
    bits = max(1, r.bit_length())
    ports = [f"input wire [{p.width - 1}:0] {p.name}" for p in ins]
    ports += [f"output wire hh_p{k}" for k in range(len(job.claims))]
    lines = [f"module hh_inv ({', '.join(ports)});",
             f"  reg [{bits - 1}:0] hh_phase = {bits}'d0;",
             f"  wire hh_in_reset = hh_phase < {bits}'d{r};",
             f"  always @(posedge {iface.clock}) if (hh_in_reset) hh_phase <= hh_phase + {bits}'d1;"]
    resets = {rst.name: rst for rst in iface.resets}
    clocks = {c.name for c in iface.clocks}
    conns = []
    for p in ins:
        if p.name in resets:
            active = "1'b0" if resets[p.name].active == "low" else "1'b1"
            drive_ = f"hh_in_reset ? {active} : {p.name}"
        elif p.name in clocks:
            drive_ = p.name
        else:
            drive_ = f"hh_in_reset ? {p.width}'d{int(job.reset_inputs.get(p.name, 0))} : {p.name}"
        conns.append(f".{p.name}({drive_})")
    for p in iface.outputs():
        lines.append(f"  wire [{p.width - 1}:0] hh_o_{p.name};")
        conns.append(f".{p.name}(hh_o_{p.name})")
    lines.append(f"  {job.top} {DUT} ({', '.join(conns)});")
    for k, c in enumerate(job.claims):
        lines.append(f"  wire [{c.width - 1}:0] hh_a{k}, hh_b{k};")
        rhs = f"hh_b{k}" if c.other else f"{c.width}'d{c.value}"
        lines.append(f"  assign hh_p{k} = !hh_in_reset && (hh_a{k} != {rhs});")
    lines.append("endmodule")
    return "\n".join(lines) + "\n"


def script(job: InvariantJob) -> str:
    """Yosys: the harness flattened, each claim's registers tied to its wires, the AIGER (every X free)."""
    reads = [f"read_verilog -sv {name}" for name in sorted(job.files)]
    ties = []
    for k, c in enumerate(job.claims):
        ties.append(f"connect -nounset -set hh_a{k} {DUT}.{c.reg}")
        if c.other:
            ties.append(f"connect -nounset -set hh_b{k} {DUT}.{c.other}")
    return "\n".join([*reads, f"read_verilog -sv {HARNESS}", "hierarchy -check -top hh_inv", "proc", "flatten",
                      *ties, "memory", "async2sync", "opt_clean", "setundef -undriven -anyseq", "techmap",
                      "setundef -anyseq", "opt -fast", "dffunmap", "aigmap", "setundef -anyseq", "opt_clean",
                      f"write_aiger -zinit -map {AIM} {AIG}"]) + "\n"


def output_index(aim: str) -> dict[int, int]:
    """Claim number -> AIGER output number, from the ``write_aiger -map`` file (claims whose outputs Yosys
    found to be one signal share a number)."""
    out: dict[int, int] = {}
    for line in aim.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == "output" and re.fullmatch(r"hh_p\d+", parts[3]):
            out[int(parts[3][4:])] = int(parts[1])
    return out


def plan(job: InvariantJob) -> Generator[Request, Reply, frozenset[int]]:
    """The indices of the claims proven (an empty set when nothing could be decided)."""
    if not checkable(job):
        return frozenset()
    files = {**job.files, HARNESS: harness(job), SCRIPT: script(job)}
    run = yield from call(Invocation("yosys-invariants", ("yosys", "-q", "-s", SCRIPT), files=files,
                                     outputs=(AIM,), timeout_s=wall_backstop(job.cpu_s), crash_is_data=True))
    if not run.result.ok or AIM not in run.outputs:  # the AIGER itself is binary: ABC reads it there
        return frozenset()
    index = output_index(run.outputs[AIM])
    if sorted(index) != list(range(len(job.claims))):
        return frozenset()
    t = max(1, int(job.cpu_s))
    every = f"read_aiger {AIG}; strash; pdr -a -T {t}"
    run = yield from call(Invocation("abc-pdr-invariants", ("yosys-abc", "-c", every),
                                     timeout_s=wall_backstop(job.cpu_s), cpu_s=t + 2, crash_is_data=True))
    text = run.text()
    refuted = {int(m.group(1)) for m in ASSERTED.finditer(text)}
    left = sorted(set(index.values()) - refuted)
    m = UNDECIDED.search(text)
    if not (run.result.ok and m is not None and int(m.group(1)) == 0):
        t1 = max(1, t // 4)
        decided = []
        for o in left:  # some undecided: which, ABC does not say; each one alone
            alone = f"read_aiger {AIG}; strash; cone -s -O {o}; pdr -T {t1}"
            one = yield from call(Invocation(f"abc-pdr-output{o}", ("yosys-abc", "-c", alone),
                                             timeout_s=wall_backstop(t1), cpu_s=t1 + 2, crash_is_data=True))
            if one.result.ok and "Property proved" in one.text():
                decided.append(o)
        left = decided
    return frozenset(k for k, o in index.items() if o in left)


def find(job: InvariantJob, sandbox: str = "required", folder: Path | None = None) -> frozenset[int]:
    """Run ``plan`` in ``folder`` (a fresh temporary folder by default): the indices of the proven claims."""
    if not checkable(job):
        return frozenset()
    with tempfile.TemporaryDirectory(prefix="hh-inv-") as tmp:
        root = Path(folder or tmp).resolve()
        root.mkdir(parents=True, exist_ok=True)
        site = ToolSite(root, (), wall_backstop(job.cpu_s), MEM_MB, sandbox, "an invariant search")

        def serve(request: Request) -> Reply:
            if not isinstance(request, Invocation):
                raise TypeError(f"an invariant search runs tools, not {type(request).__name__}")
            return site.serve(request, root)

        return drive(plan(job), serve)
