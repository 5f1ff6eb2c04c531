"""The declared shape of a stage (LibreLane's Step) with pure setup and post-processing (SiliconCompiler's).

A stage declares its ``id``, the artifacts it reads (``inputs``) and makes (``outputs``) and the design
keys it depends on (``config``). Its ``plan`` is a generator: it *yields* the tool invocations it needs
(argv, scripts and benches as text, timeout, extra readable paths, files to read back) and *receives*
what each run gave (exit status, logs, the declared output files as text); it returns the verdict. The
plan never touches the disk or starts a process: the stage runner (``stages.runner``) does both, so a
stage is built and judged by pure code, and a multi-tool stage (compile: iverilog then verilator) is a
plan with several yields.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from pydantic import JsonValue

from ..runner import ToolResult

if TYPE_CHECKING:
    from ..sim.cocotb_run import CocotbOutcome
    from .context import StageContext

MESSAGE_LIMIT = 300


class StageId(StrEnum):
    """Every stage of every pipeline; a failed evaluation's ``failed_gate`` is one of these."""

    SAFETY = "safety"
    COMPILE = "compile"
    STRUCTURE = "structure"
    SIMULATION = "simulation"
    EQUIVALENCE = "equivalence"
    SYNTHESIS = "synthesis"
    NETLIST_SIM = "netlist_sim"  # the synthesized netlist simulated beside its own RTL
    STA = "sta"
    POWER = "power"


def short(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """One line, bounded: the message goes into an LLM repair prompt and a CI log."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class Invocation:
    """One tool run, described completely. Paths are relative to the stage folder (the tool's working
    directory is ``cwd`` inside it), so the argv is the same in every run folder."""

    name: str  # logs: <name>.stdout, <name>.stderr in the stage folder
    argv: tuple[str, ...]
    files: Mapping[str, str] = field(default_factory=dict)  # written before the run (scripts, benches, stimulus)
    outputs: tuple[str, ...] = ()  # removed before the run, read back after it when present
    consume: bool = False  # the outputs are removed once read (a waveform counted, not kept)
    cacheable: bool = False  # reads only argv and ``files``: the runner may answer it from ``stages.memo``
    cwd: str = "."
    timeout_s: float | None = None  # None: limits.tool_timeout_s
    cpu_s: int | None = None  # CPU-time cap (RLIMIT_CPU); None: the runner's backstop of twice the timeout
    readable: tuple[Path, ...] = ()  # besides the run folder and the design's own inputs
    crash_is_data: bool = False  # a crash is the design's fault (pyslang on odd RTL), not the tool's
    max_file_bytes: int | None = None
    max_output: int | None = None


@dataclass(frozen=True)
class ToolRun:
    """What one invocation gave: the run (exit status, logs) and its declared outputs that exist."""

    result: ToolResult
    outputs: Mapping[str, str]

    def text(self) -> str:
        return self.result.stdout + "\n" + self.result.stderr


@dataclass(frozen=True)
class CocotbRun:
    """cocotb's own runner builds and runs the simulator (each command through ``run_tool``, sandboxed);
    the test code is trusted, the RTL it loads is the canonical text."""

    sources: tuple[str, ...]
    toplevel: str
    test_module: str
    test_dir: Path
    build_dir: str
    timeout_s: float
    simulator: str
    params: Mapping[str, str]
    seed: int
    image: str | None = None  # an Icarus image compiled from ``sources`` with the build's flags, used as the build


@dataclass(frozen=True)
class CocotbReply:
    outcome: CocotbOutcome


Request = Invocation | CocotbRun
Reply = ToolRun | CocotbReply


@dataclass(frozen=True)
class StageResult:
    """A stage's verdict. ``details`` is free-form JSON for result.json; ``files`` are artifacts the runner
    writes into the stage folder; ``value`` is the typed output later stages read (``StageContext.value``)."""

    stage: StageId
    passed: bool
    message: str
    details: Mapping[str, object] = field(default_factory=dict)  # each stage's own TypedDict(s), or a few keys
    wall_s: float = 0.0
    skipped: bool = False
    files: Mapping[str, str] = field(default_factory=dict, compare=False)
    value: object = field(default=None, compare=False)

    @property
    def gate(self) -> StageId:
        return self.stage

    def to_dict(self) -> dict[str, JsonValue]:
        """result.json's form. The details are JSON values by the stages' contract (their TypedDicts hold str,
        numbers, bools, lists and dicts of them), so they are passed on unchecked."""
        return {"gate": str(self.stage), "passed": self.passed, "skipped": self.skipped, "message": self.message,
                "details": cast("JsonValue", self.details), "wall_s": round(self.wall_s, 4)}


Plan = Generator[Request, Reply, StageResult]


def passed(stage: StageId | str, message: str, wall_s: float = 0.0, **details: Any) -> StageResult:
    return StageResult(StageId(stage), True, short(message), details, wall_s)


def failed(stage: StageId | str, message: str, wall_s: float = 0.0, **details: Any) -> StageResult:
    return StageResult(StageId(stage), False, short(message), details, wall_s)


def skipped(stage: StageId | str, message: str) -> StageResult:
    """Not applicable (nothing configured) or not run (an earlier stage failed); never a failure."""
    return StageResult(StageId(stage), True, short(message), {}, 0.0, skipped=True)


def call(inv: Invocation) -> Generator[Request, Reply, ToolRun]:
    """``run = yield from call(inv)``: one tool run inside a plan."""
    reply = yield inv
    assert isinstance(reply, ToolRun)
    return reply


def cocotb(req: CocotbRun) -> Generator[Request, Reply, CocotbOutcome]:
    reply = yield req
    assert isinstance(reply, CocotbReply)
    return reply.outcome


class Stage(Protocol):
    """A declared stage: what it reads and makes, what it depends on, and its pure plan."""

    @property
    def id(self) -> StageId: ...

    @property
    def inputs(self) -> tuple[str, ...]: ...

    @property
    def outputs(self) -> tuple[str, ...]: ...

    @property
    def config(self) -> tuple[str, ...]: ...

    def skip_reason(self, ctx: StageContext) -> str | None:
        """None when the stage runs, else why it does not apply (nothing configured)."""
        ...

    def plan(self, ctx: StageContext) -> Plan: ...
