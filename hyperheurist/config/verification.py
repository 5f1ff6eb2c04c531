"""``verification``: how a candidate is checked (cocotb, a testbench, a reference) and the formal gate."""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from ..inputs import input_problem
from .model import MAX_TIMEOUT_S, Model, base_of
from .paths import check_sources, is_file, path_text, resolve_file

PY_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
COCOTB_TEST = re.compile(r"@\s*(?:cocotb\s*\.\s*)?test\b")  # @cocotb.test() or, imported, @test()
MAX_DATA_FILE_BYTES = 16 << 20  # a $readmemh table; anything larger is not a testbench input


def _data_file(name: str, value: object, base: Path) -> Path:
    """The absolute path of one testbench data file placed as ``name`` in the simulation folders."""
    rel = PurePosixPath(name)
    if not name or rel.is_absolute() or ".." in rel.parts or "\\" in name:
        raise ValueError(f"data_files: {name!r}: the name must be a relative path inside the simulation folder")
    given = Path(path_text(value)).expanduser()
    given = given if given.is_absolute() else base / given
    problem = input_problem(given, base)
    if problem:
        raise ValueError(f"data_files: {problem}")
    if given.stat().st_size > MAX_DATA_FILE_BYTES:
        raise ValueError(f"data_files: {given}: larger than {MAX_DATA_FILE_BYTES >> 20} MiB")
    return given.resolve()


class Differential(Model):
    enabled: bool = True
    cycles: int = Field(default=400, ge=1, le=1_000_000)
    seed: int = 1


class NetlistSim(Model):
    """The synthesized netlist (the one PPA scores in a run; Yosys' generic one in ``hh gate``) simulated
    beside the design's own RTL on the differential bench's stimulus (``gates.netlist_sim``)."""

    enabled: bool = True  # simulate the synthesized netlist beside the RTL; any difference: the design is invalid
    cycles: int | None = Field(default=None, ge=1, le=1_000_000)  # cycles of that bench (null: differential.cycles)
    # verification.cocotb's tests on the netlist too (Icarus): gate = in hh gate and hh audit (5-15 s a design
    # at gate level); always = on every scored netlist of a run as well; never
    cocotb: Literal["gate", "always", "never"] = "gate"


class Equivalence(Model):
    # on by default, so no RTL change is accepted unproven unless asked; a design.yaml that does not say is off
    # only where the check cannot model the clocks (several domains not in lockstep: DesignConfig decides)
    enabled: bool = True
    depth: int = Field(default=12, ge=1, le=1000)  # bounded search: cycles after the reset sequence
    # shared by the check's engines; the wall clock stops a run only at 4x its budget + 5 s, and a check it
    # stopped is a tool fault (exit 3, retried on resume), never a verdict: a busy machine changes no verdict
    timeout_s: float = Field(default=120, ge=1, le=MAX_TIMEOUT_S)  # CPU-time budget of one check (spent: inconclusive)
    engine: Literal["auto", "yosys-sat"] = "auto"  # auto: ABC unless a side can produce X
    policy: Literal["proven", "proven_or_bounded"] = "proven_or_bounded"
    reset_cycles: int = Field(default=2, ge=1, le=64)  # the declared reset sequence: reset held this long
    reset_inputs: dict[str, int] = {}  # data input values during the reset sequence (others 0)
    compare_when: dict[str, str] = {}  # output -> 1-bit output: compared only while the reference's is 1
    against: Literal["all", "parent"] = "all"  # parent: only Phase-2 changes against their parent


MismatchAction = Literal["refuse", "warn", "allow"]


class Mismatch(Model):
    """What the structure stage does with constructs that simulation and synthesis read as two circuits
    (docs/mismatch.md: the constructs, what Icarus, Verilator and Yosys each do, and the rules). ``refuse``: the
    design is invalid (file:line and why); ``warn``: it passes, the stage names each one; ``allow``: silent."""

    x_compare: MismatchAction = "refuse"  # ===, !==, ==?, x/z literals compared, casex, x/z case items, $isunknown
    sensitivity: MismatchAction = "refuse"  # always @(a) that reads b: simulation lags, synthesis does not
    delays: MismatchAction = "refuse"  # `#` delays in design code (Yosys ignores them)
    synthesis_pragmas: MismatchAction = "refuse"  # // synopsys full_case, (* parallel_case *), unique case...


class Verification(Model):
    """How a candidate is checked: give at least one of ``cocotb``, ``testbench`` or ``reference``. Files a
    testbench opens with ``$readmemh``/``$readmemb`` are listed in ``data_files`` (relative to design.yaml)
    and placed under the same relative path in its simulation folder; a bench that cannot open one fails.
    ``initial: power_on_values`` accepts `initial` blocks that only assign constants to registers, also
    through constant-bound `for` loops and `if`s on parameters (judged on the elaborated design, so a branch
    dead at the parameters vanishes) (FPGA-style power-on values): the differential bench and the equivalence
    proof start both sides from them; synthesis onto an ASIC liberty has no power-on state, so PPA ignores them
    (the structure stage says so). Any other `initial` content (delays, other loops, system tasks, signals) is
    rejected with file:line.

    Internal: ``data_files`` holds name -> absolute path once loaded (the form resolved.yaml records)."""

    cocotb: str | None = None
    # folder holding the cocotb module; defaults to the YAML's folder
    test_dir: Path | None = Field(default=None, validate_default=True)
    testbench: Path | None = None
    pass_regex: str = "PASSED"
    fail_regex: str | None = r"\bFAIL|\bERROR\b|\bMISMATCH"
    reference: Path | None = None
    data_files: dict[str, Path] = {}  # files the testbench $readmem's: paths in the design folder, copied beside it
    simulator: Literal["icarus", "verilator"] = "icarus"
    # power_on_values: `initial` blocks that only assign constants to registers are FPGA-style power-on values
    # (simulated and proven from them; synthesis onto an ASIC liberty has none, so PPA ignores them)
    initial: Literal["reject", "power_on_values"] = "reject"  # what the structure stage does with `initial` blocks
    mismatch: Mismatch = Mismatch()  # simulation/synthesis mismatch rules of the structure stage
    timeout_s: float = Field(default=60, ge=1, le=86400)  # under a second no bench even starts
    differential: Differential = Differential()
    equivalence: Equivalence = Equivalence()
    netlist_sim: NetlistSim = NetlistSim()

    @field_validator("testbench", mode="before")
    @classmethod
    def _files(cls, v: object, info: ValidationInfo) -> Path | None:
        return resolve_file(v, info)

    @field_validator("data_files", mode="before")
    @classmethod
    def _data_files(cls, v: object, info: ValidationInfo) -> dict[str, Path]:
        base = base_of(info).resolve()
        if isinstance(v, (str, Path)):
            v = [v]
        if isinstance(v, list):  # the written form: paths relative to design.yaml, named by that path
            named: dict[object, object] = {}
            for e in v:
                p = Path(path_text(e))
                full = Path(os.path.normpath(base / p))  # not resolved: a link out is input_problem's to name
                if p.is_absolute() or not full.is_relative_to(base) or full == base:
                    raise ValueError(f"data_files: {e}: not inside the design folder {base} (name it in a "
                                     "mapping `name: path` to use a file elsewhere)")
                named[full.relative_to(base).as_posix()] = full
            v = named
        if not isinstance(v, dict):
            raise ValueError("data_files: expected a list of paths or a mapping name -> path")
        return {str(k): _data_file(str(k), p, base) for k, p in v.items()}

    @field_validator("reference", mode="before")
    @classmethod
    def _reference(cls, v: object, info: ValidationInfo) -> Path | None:
        """A file, a folder (its .v/.sv files are one design) or a filelist."""
        if v is None:
            return None
        given = Path(path_text(v)).expanduser()
        given = given if given.is_absolute() else base_of(info) / given
        p = given.resolve()
        problem = input_problem(given, base_of(info)) if p.exists() and not p.is_dir() else None
        if problem:  # /proc/self/environ, a device, a link out of the design folder
            raise ValueError(problem)
        check_sources([str(p)], p.parent)
        return p

    @field_validator("test_dir", mode="before")
    @classmethod
    def _test_dir(cls, v: object, info: ValidationInfo) -> Path:
        p = Path(path_text(v)).expanduser() if v is not None else base_of(info)
        return (p if p.is_absolute() else base_of(info) / p).resolve()

    @model_validator(mode="after")
    def _cocotb_module(self) -> Verification:
        v = self.cocotb
        if v is None:
            return self
        if not PY_MODULE.match(v):
            raise ValueError(f"cocotb: not a Python module name: {v!r}")
        assert self.test_dir is not None
        module = self.test_dir / f"{v}.py"
        if not is_file(module):
            raise ValueError(f"cocotb: test module not found: {module}")
        problem = input_problem(module, self.test_dir)
        if problem:
            raise ValueError(f"cocotb: {problem}")
        try:  # read, never imported here: it is code that runs only inside the sandbox
            text = module.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise ValueError(f"cocotb: {module}: {exc.strerror}") from None
        if not COCOTB_TEST.search(text):  # e.g. a standard-library module: every candidate would "fail" it
            raise ValueError(f"cocotb: {module} declares no @cocotb.test() (not a cocotb test module)")
        return self

    @field_validator("pass_regex", "fail_regex")
    @classmethod
    def _regex(cls, v: str | None) -> str | None:
        if v is not None:
            try:
                re.compile(v)
            except re.error as exc:
                raise ValueError(f"bad regular expression: {exc}") from exc
        return v

    @model_validator(mode="after")
    def _some_check(self) -> Verification:
        if not (self.cocotb or self.testbench or self.reference):
            raise ValueError("nothing judges the design's function: give at least one of cocotb (your test module), "
                             "testbench (a self-checking bench) or reference (a golden copy of the RTL: "
                             "`hh init --golden DIR` writes one)")
        return self
