"""The miter: a Verilog wrapper around the golden and the candidate, and the Yosys run that flattens it.

The wrapper (module ``hh_miter``) feeds both sides the same inputs and raises ``trigger`` when an
output differs. It is X-aware: a bit is compared only where the golden drives 0 or 1 (``===``), and
an X or Z on the candidate there is a difference, which is what the differential bench does in
Icarus. Sequential designs get a reset phase: for the first ``reset_cycles`` cycles (counted by a
zero-initialised phase register) the reset is held active and data inputs are forced to the declared
``reset_inputs`` (0 by default) and nothing is compared; both sides then start from the state the
reset sequence produces (every declared reset is held). Several clocks are stepped as one, so
only clocks declared synchronous are accepted. Registers the sequence does not set start free (any
value), which can only make a proof harder, never unsound. ``compare_when`` qualifies an output by
another 1-bit output of the golden: ``data_out`` is compared only in cycles where ``valid_out`` is 1.

One Yosys run (``check_script``) writes the flattened miter as RTLIL (for the 4-state Yosys SAT
engine) and, from that, as AIGER for ABC with every X a free input; ``x_sources`` looks in the
hierarchy before flattening for candidate cells whose X AIGER cannot model (division by zero).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..config import Interface
from ..errors import ConfigError
from .inits import TIE_SCRIPT

AIG, AIG_MAP, FLAT_IL, HIER_IL, WRAPPER = "hh_miter.aig", "hh_miter.aim", "hh_miter.il", "hh_hier.il", "hh_miter.v"
TIED_IL = "hh_miter_tied.il"  # FLAT_IL with shared start values (formal.inits), the AIGER path's input
X_CELLS = ("$div", "$mod", "$divfloor", "$modfloor")  # techmap gives x/0 a value; Icarus gives X


@dataclass(frozen=True)
class MiterSpec:
    iface: Interface
    gold_top: str
    gate_top: str
    gold_params: dict[str, str] = field(default_factory=dict)
    gate_params: dict[str, str] = field(default_factory=dict)
    reset_cycles: int = 2
    reset_inputs: dict[str, int] = field(default_factory=dict)
    compare_when: dict[str, str] = field(default_factory=dict)

    @property
    def phase_cycles(self) -> int:
        """Cycles of the reset phase (0 for combinational designs and designs without a reset)."""
        return self.reset_cycles if self.iface.sequential and self.iface.reset else 0


def check_spec(spec: MiterSpec) -> None:
    """Config errors name the design.yaml field."""
    if not spec.iface.lockstep_clocks:  # the miter steps every register on one global clock
        domains = ", ".join(c.domain_name for c in spec.iface.clocks)
        raise ConfigError(f"interface.clocks: several clock domains ({domains}): the equivalence check steps one "
                          "clock; declare interface.synchronous_clocks: true if the clocks share every edge (one "
                          "period_ns for all), or leave verification.equivalence off")
    data = {p.name: p for p in spec.iface.data_inputs()}
    outs = {p.name: p for p in spec.iface.outputs()}
    for name, value in spec.reset_inputs.items():
        if name not in data:
            raise ConfigError(f"verification.equivalence.reset_inputs: {name!r} is not a data input")
        if not 0 <= int(value) < (1 << data[name].width):
            raise ConfigError(f"verification.equivalence.reset_inputs.{name}: {value} does not fit "
                              f"{data[name].width} bits")
    for out, qual in spec.compare_when.items():
        if out not in outs:
            raise ConfigError(f"verification.equivalence.compare_when: {out!r} is not an output")
        if qual not in outs or outs[qual].width != 1 or qual == out:
            raise ConfigError(f"verification.equivalence.compare_when.{out}: {qual!r} is not another 1-bit output")


def _params(params: dict[str, str]) -> str:
    return "#(" + ", ".join(f".{k}({v})" for k, v in params.items()) + ") " if params else ""


def wrapper(spec: MiterSpec) -> str:
    iface = spec.iface
    ins = [p for p in iface.all_ports() if p.dir == "input"]
    outs = iface.outputs()
    r = spec.phase_cycles
    lines = ["module hh_miter ("]
    lines += [f"  input wire [{p.width - 1}:0] {p.name}," for p in ins]
    lines += ["  output wire trigger", ");"]
    if r:
        bits = max(1, r.bit_length())
        lines += [f"  reg [{bits - 1}:0] hh_phase = {bits}'d0;",
                  f"  wire hh_in_reset = hh_phase < {bits}'d{r};",
                  f"  always @(posedge {iface.clock}) if (hh_in_reset) hh_phase <= hh_phase + {bits}'d1;"]
    else:
        lines.append("  wire hh_in_reset = 1'b0;")
    conn = []
    resets = {rst.name: rst for rst in iface.resets}
    clocks = {c.name for c in iface.clocks}
    for p in ins:
        if r and p.name in resets:  # every reset held during the phase
            active = "1'b0" if resets[p.name].active == "low" else "1'b1"
            lines.append(f"  wire [0:0] hh_e_{p.name} = hh_in_reset ? {active} : {p.name};")
        elif r and p.name not in clocks:
            forced = int(spec.reset_inputs.get(p.name, 0))
            lines.append(f"  wire [{p.width - 1}:0] hh_e_{p.name} = hh_in_reset ? {p.width}'d{forced} : {p.name};")
        else:
            lines.append(f"  wire [{p.width - 1}:0] hh_e_{p.name} = {p.name};")
        conn.append(f".{p.name}(hh_e_{p.name})")
    for p in outs:
        lines.append(f"  wire [{p.width - 1}:0] hh_g_{p.name}, hh_d_{p.name};")
    for side, top, params in (("g", spec.gold_top, spec.gold_params), ("d", spec.gate_top, spec.gate_params)):
        conns = ", ".join(conn + [f".{p.name}(hh_{side}_{p.name})" for p in outs])
        lines.append(f"  {top} {_params(params)}hh_{'gold' if side == 'g' else 'gate'} ({conns});")
    diffs = []
    for p in outs:
        # per bit: the golden drives 0/1 and the candidate does not drive the same value (X on it differs)
        differ = " | ".join(f"((hh_g_{p.name}[{i}] === 1'b0 || hh_g_{p.name}[{i}] === 1'b1) "
                          f"&& hh_d_{p.name}[{i}] !== hh_g_{p.name}[{i}])" for i in range(p.width))
        lines.append(f"  wire hh_x_{p.name} = {differ};")
        qual = spec.compare_when.get(p.name)
        diffs.append(f"(hh_g_{qual} === 1'b1 && hh_x_{p.name})" if qual else f"hh_x_{p.name}")
    lines.append(f"  assign trigger = !hh_in_reset && ({' || '.join(diffs)});")
    lines.append("endmodule")
    return "\n".join(lines) + "\n"


def check_script(gold_files: list[str], gold_inc: str, gate_files: list[str], gate_inc: str, aiger: bool) -> str:
    """The one Yosys run of a check, paths relative to the stage folder.

    First the miter, flattened and not optimised, so X constants stay X (the SAT engine models them in
    4 states): ``HIER_IL`` before flattening, ``FLAT_IL`` after. With ``aiger``, the same process goes
    on to the AIGER: the Tcl script ``TIE_SCRIPT`` (``inits``) says ``MITER_WRITTEN`` on stdout and ties
    start values (``TIED_IL``), which are read back into an empty design and written with every X a
    fresh input in every cycle (``setundef -anyseq``), so a proof holds for any value an X could take
    (sound for both sides: for the candidate it proves the X unobservable; for the golden it is stricter
    than a don't-care). ``write_aiger -zinit`` makes registers without an init value free at the start."""
    lines = [f"read_verilog -sv -I{gold_inc} " + " ".join(gold_files),
             f"read_verilog -sv -I{gate_inc} " + " ".join(gate_files),
             f"read_verilog -sv {WRAPPER}",
             "hierarchy -check -top hh_miter",
             "proc",
             f"write_rtlil {HIER_IL}",
             "flatten", "memory", "async2sync", "opt_clean",
             f"write_rtlil {FLAT_IL}"]
    if aiger:
        # setundef before any opt (which may fold X), after techmap (out-of-range shifts give X) and at the
        # end (opt marks bits it proved unused as X): an X is always a free input, never a folded value
        lines += [f"tcl {TIE_SCRIPT} {FLAT_IL} {TIED_IL}", "design -reset", f"read_rtlil {TIED_IL}",
                  "setundef -undriven -anyseq", "setundef -anyseq", "techmap", "setundef -anyseq", "opt -fast",
                  "dffunmap", "aigmap", "setundef -anyseq", "opt_clean", f"write_aiger -zinit -map {AIG_MAP} {AIG}"]
    return "\n".join(lines) + "\n"


def x_sources(rtlil: str) -> list[str]:
    """Candidate cells whose result Icarus makes X but the AIGER miter gives a value (division by
    zero), as 'module: cell'; empty: the AIGER miter is exact for the candidate. Out-of-range selects
    need nothing: techmap makes them X, and every X becomes a free input. The golden's such cells only
    make the check stricter (a golden value where Icarus has a don't-care X)."""
    found: list[str] = []
    module = ""
    for line in rtlil.splitlines():
        s = line.strip()
        if s.startswith("module "):
            module = s.split()[1].lstrip("\\")
        elif module == "hh_miter" or module.startswith("hhref_"):
            continue
        elif s.startswith("cell ") and s.split()[1] in X_CELLS:
            found.append(f"{module}: {s.split()[1]}")
    return sorted(set(found))
