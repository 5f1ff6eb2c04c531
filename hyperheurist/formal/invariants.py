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

Its tools run under the design's ``limits`` as every proof does (``formal.driver``): ``tool_mem_mb``, ``sandbox``,
and ``tool_timeout_s`` as the ceiling of each run's wall clock (the CPU budget ``cpu_s`` sets a lower one).
"""

from __future__ import annotations

import re
from collections.abc import Generator
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from ..config import Interface, Limits
from ..stages.model import Invocation, Reply, Request, call
from ..stages.serve import ToolSite, drive
from ..tempdirs import owned_tempdir
from .abc import wall_backstop

HARNESS, SCRIPT, AIG, AIM = "hh_inv.v", "hh_inv.ys", "hh_inv.aig", "hh_inv.aim"
DUT = "hh_dut"
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ASSERTED = re.compile(r"Output\s+(\d+) was asserted in frame")
UNDECIDED = re.compile(r"Undecided = (\d+)")
T = TypeVar("T")
MAX_ALONE = 12  # claims tried alone when the batch leaves some undecided


@dataclass(frozen=True)
class Claim:
    """``reg`` (``width`` bits) equals the constant ``value``, or the register ``other``, after reset. A bit
    claim (``bit`` set) is about ``reg[bit]`` alone: it equals ``value`` (0 or 1), or ``other[other_bit]``
    (``other_width`` bits wide), inverted when ``inverted``."""

    reg: str
    width: int
    value: int | None = None
    other: str | None = None
    bit: int | None = None
    other_bit: int | None = None
    other_width: int | None = None
    inverted: bool = False

    def describe(self) -> str:
        if self.bit is None:
            return f"{self.reg} == {self.other}" if self.other else f"{self.reg} == {self.width}'d{self.value}"
        rhs = f"{'~' if self.inverted else ''}{self.other}[{self.other_bit}]" if self.other else f"1'b{self.value}"
        return f"{self.reg}[{self.bit}] == {rhs}"

    def registers(self) -> list[tuple[str, int]]:
        """The registers the claim reads, with their widths."""
        out = [(self.reg, self.width)]
        if self.other:
            out.append((self.other, self.other_width if self.bit is not None and self.other_width else self.width))
        return out

    def well_formed(self) -> bool:
        """Names the harness can tie, widths >= 1, bits inside them, a bit claim's value a bit."""
        if not all(NAME.match(n) and w >= 1 for n, w in self.registers()):
            return False
        if self.bit is None:
            return (self.value is None) != (self.other is None)
        if not 0 <= self.bit < self.width:
            return False
        if self.other is None:
            return self.value in (0, 1)
        return self.other_width is not None and self.other_bit is not None and 0 <= self.other_bit < self.other_width

    def mismatch(self, a: str, b: str) -> str:
        """The harness expression that is 1 when the claim fails (``a``/``b``: the wires of its registers)."""
        if self.bit is None:
            rhs = b if self.other else f"{self.width}'d{self.value}"
            return f"{a} != {rhs}"
        rhs = f"{'~' if self.inverted else ''}{b}[{self.other_bit}]" if self.other else f"1'b{self.value}"
        return f"{a}[{self.bit}] != {rhs}"


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
    return bool(job.claims) and iface.sequential and iface.reset is not None and iface.lockstep_clocks \
        and all(c.well_formed() for c in job.claims) and tied(job.claims) is not None


def tied(claims: tuple[Claim, ...]) -> dict[str, int] | None:
    """Each register the claims read, with its width (one wire each in the harness); None when two claims
    give one register two widths."""
    out: dict[str, int] = {}
    for c in claims:
        for name, width in c.registers():
            if out.setdefault(name, width) != width:
                return None
    return out


def frame(iface: Interface, top: str, reset_cycles: int, reset_inputs: dict[str, int], name: str,
          outputs: list[str]) -> list[str]:
    """The lines of a harness module ``name`` up to its body: the top instantiated as ``hh_dut`` behind the
    reset sequence (every reset active for ``reset_cycles`` cycles, data inputs at ``reset_inputs``), the
    flag ``hh_in_reset`` and the given output port declarations."""
    r = reset_cycles
    ins = [p for p in iface.all_ports() if p.dir == "input"]
    bits = max(1, r.bit_length())
    ports = [f"input wire [{p.width - 1}:0] {p.name}" for p in ins] + outputs
    lines = [f"module {name} ({', '.join(ports)});",
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
            drive_ = f"hh_in_reset ? {p.width}'d{int(reset_inputs.get(p.name, 0))} : {p.name}"
        conns.append(f".{p.name}({drive_})")
    for p in iface.outputs():
        lines.append(f"  wire [{p.width - 1}:0] hh_o_{p.name};")
        conns.append(f".{p.name}(hh_o_{p.name})")
    lines.append(f"  {top} {DUT} ({', '.join(conns)});")
    return lines


def harness(job: InvariantJob) -> str:
    """The module ``hh_inv``: the reset sequence around the top, one wire ``hh_w<j>`` per register the
    claims read (tied by the script), one output ``hh_p<k>`` per claim."""
    regs = list((tied(job.claims) or {}).items())
    wire = {name: f"hh_w{j}" for j, (name, _) in enumerate(regs)}
    lines = frame(job.iface, job.top, job.reset_cycles, job.reset_inputs, "hh_inv",
                  [f"output wire hh_p{k}" for k in range(len(job.claims))])
    lines += [f"  wire [{w - 1}:0] {wire[name]};" for name, w in regs]
    for k, c in enumerate(job.claims):
        b = wire[c.other] if c.other else ""
        lines.append(f"  assign hh_p{k} = !hh_in_reset && ({c.mismatch(wire[c.reg], b)});")
    lines.append("endmodule")
    return "\n".join(lines) + "\n"


def prepare(files: dict[str, str], harness_file: str, top: str, ties: list[str], write: str) -> str:
    """Yosys: the design and a harness flattened, the ties (``connect`` on the flattened names), the AIGER
    (every X free) written by ``write``. No ``opt``: a register bit or a claim it folds to a constant would
    be missing from the map (ABC's ``strash`` folds them all the same)."""
    reads = [f"read_verilog -sv {name}" for name in sorted(files)]
    return "\n".join([*reads, f"read_verilog -sv {harness_file}", f"hierarchy -check -top {top}", "proc", "flatten",
                      *ties, "memory", "async2sync", "opt_clean", "setundef -undriven -anyseq", "techmap",
                      "setundef -anyseq", "dffunmap", "aigmap", "setundef -anyseq", "opt_clean",
                      write]) + "\n"


def script(job: InvariantJob) -> str:
    """Yosys: the harness flattened, each claimed register tied to its wire, the AIGER."""
    regs = list(tied(job.claims) or {})
    ties = [f"connect -nounset -set hh_w{j} {DUT}.{name}" for j, name in enumerate(regs)]
    return prepare(job.files, HARNESS, "hh_inv", ties, f"write_aiger -zinit -map {AIM} {AIG}")


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
    index = output_index(run.outputs[AIM])  # a claim missing from it stays unproven
    if not index:
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
        for o in left[:MAX_ALONE]:  # some undecided: which, ABC does not say; each one alone
            alone = f"read_aiger {AIG}; strash; cone -s -O {o}; pdr -T {t1}"
            one = yield from call(Invocation(f"abc-pdr-output{o}", ("yosys-abc", "-c", alone),
                                             timeout_s=wall_backstop(t1), cpu_s=t1 + 2, crash_is_data=True))
            if one.result.ok and "Property proved" in one.text():
                decided.append(o)
        left = decided
    return frozenset(k for k, o in index.items() if o in left)


def run_plan(plan: Generator[Request, Reply, T], limits: Limits, folder: Path | None, prefix: str, who: str) -> T:
    """Drive ``plan``'s tool runs in ``folder`` (a fresh owned temporary folder by default, so one a killed hh
    left is removed by the next run) under ``limits``: its memory cap and sandbox, its tool timeout as the
    ceiling of every run's wall clock."""
    with ExitStack() as stack:
        root = (folder or stack.enter_context(owned_tempdir(prefix))).resolve()
        root.mkdir(parents=True, exist_ok=True)
        site = ToolSite.of(root, limits, who)

        def serve(request: Request) -> Reply:
            if not isinstance(request, Invocation):
                raise TypeError(f"{who} runs tools, not {type(request).__name__}")
            wall = min(request.timeout_s or limits.tool_timeout_s, limits.tool_timeout_s)
            return site.serve(replace(request, timeout_s=wall), root)

        return drive(plan, serve)


def find(job: InvariantJob, limits: Limits | None = None, folder: Path | None = None) -> frozenset[int]:
    """Run ``plan`` in ``folder`` (a fresh temporary folder by default) under ``limits`` (the defaults when
    None): the indices of the proven claims."""
    if not checkable(job):
        return frozenset()
    return run_plan(plan(job), limits or Limits(), folder, "hh-inv-", "an invariant search")
