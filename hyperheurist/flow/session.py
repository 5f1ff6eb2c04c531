"""One run's session: its directory (created or resumed, locked), stop flag, journal, worker pool and
the counters every phase adds to."""

from __future__ import annotations

import errno
import signal
import sys
import time
from collections.abc import Callable
from concurrent.futures import BrokenExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from ..config import DesignConfig
from ..errors import ConfigError, StorageError, ToolError
from ..evaluate import EvalTask, Outcome, worker_init
from ..executors import Executor, make_executor
from ..journal import INFRA, Journal, file_digest
from ..record.entries import StartRecord
from ..rlimits import die_with_parent
from ..rundir import RunDir, default_jobs
from ..runner import set_run_commands_file
from ..search.state import Evaluation
from . import guarded

INFRA_STREAK = 3  # tool faults in a row that stop the search (resumable) instead of annealing on
FULL_DISK = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


@dataclass
class RunOptions:
    out_root: Path = Path("runs")
    jobs: int | None = None
    quiet: bool = False
    power: str | None = None
    resume: Path | None = None
    replay: Path | None = None
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    report: bool = True
    executor: str = "local"
    ray_address: str | None = None
    argv: list[str] = field(default_factory=lambda: list(sys.argv))


class StopFlag:
    """Set by SIGINT/SIGTERM: the annealer finishes its iteration and the run is left resumable."""

    def __init__(self) -> None:
        self.reason: str | None = None

    def __call__(self) -> bool:
        return self.reason is not None

    def install(self) -> Callable[[], None]:
        """Handle SIGINT and SIGTERM, except one inherited as ignored: a shell starts a background job with
        SIGINT ignored so that the terminal's Ctrl-C does not reach it (``hh gate`` and the tools keep that too)."""
        old = {s: h for s in (signal.SIGINT, signal.SIGTERM) if (h := signal.getsignal(s)) is not signal.SIG_IGN}

        def handler(signum: int, _frame: FrameType | None) -> None:
            if self.reason is not None:  # second Ctrl-C: stop now
                raise KeyboardInterrupt
            self.reason = signal.Signals(signum).name

        for s in old:
            signal.signal(s, handler)

        def restore() -> None:
            for s, h in old.items():
                signal.signal(s, h)

        return restore


@dataclass
class Counters:
    evaluations: int = 0
    cache_hits: int = 0
    infra_faults: int = 0  # fresh evaluations cut short by a tool fault (crash, missing tool, ...)
    infra_streak: int = 0
    infra_first: str | None = None


def open_run_dir(design: DesignConfig, opts: RunOptions) -> tuple[RunDir, bool]:
    """The run directory, locked: a new one, or the one ``--resume`` names (then True)."""
    if opts.resume is not None:
        rd = RunDir.open(opts.resume)
        rd.lock()
        rd.remove_stale_temp_files()  # left by the kill that ended the previous attempt
        return rd, True
    try:
        rd = RunDir.create(design, design.anneal.seed, root=opts.out_root, argv=opts.argv)
        rd.lock()
        return rd, False
    except OSError as exc:
        if exc.errno in FULL_DISK:
            raise StorageError(f"--out {opts.out_root}: cannot create the run directory: {exc.strerror}") from None
        raise ConfigError(f"--out {opts.out_root}: cannot create the run directory: {exc.strerror}"
                          f"{': ' + str(exc.filename) if exc.filename else ''}") from None


class Session:
    """What both phases share; ``open``/``close`` bracket the worker pool and the signal handlers."""

    def __init__(self, design: DesignConfig, rd: RunDir, opts: RunOptions, resume: bool) -> None:
        self.design = design
        self.rd = rd
        self.opts = opts
        self.journal = Journal(rd.journal, rd.run_id, resume=resume, resolved=rd.resolved,
                               header=StartRecord(design=design.name, seed=design.anneal.seed,
                                                  resolved_sha256=file_digest(rd.resolved)))
        self.power = opts.power or design.ppa.power
        self.jobs = opts.jobs or design.anneal.jobs or default_jobs()
        self.stop = StopFlag()
        self.t0 = time.monotonic()
        self.counters = Counters()
        self._pool: Executor | None = None
        self._restore: Callable[[], None] | None = None

    def open(self) -> None:
        self._restore = self.stop.install()
        set_run_commands_file(self.rd.commands)
        self._pool = make_executor(self.opts.executor, self.jobs, address=self.opts.ray_address,
                                   initializer=_worker_init, initargs=(str(self.rd.commands),))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
        set_run_commands_file(None)
        if self._restore is not None:
            self._restore()

    def say(self, text: str) -> None:
        if not self.opts.quiet:
            print(text, file=sys.stderr, flush=True)

    def wall_s(self) -> float:
        return round(time.monotonic() - self.t0, 3)

    def run_tasks(self, tasks: list[EvalTask]) -> list[Outcome]:
        """Evaluate in the pool, results in task order; a pool broken by a killed worker gets one retry."""
        if not tasks:
            return []
        assert self._pool is not None, "Session.open() starts the pool"
        try:
            return self._pool.map(guarded.evaluate_guarded, tasks)
        except BrokenExecutor:
            # a worker was killed (the OOM killer, a stray kill -9): a fresh pool gets one more try
            self.say("hh: a worker process died; restarting the worker pool and retrying the batch")
            self._pool.shutdown()
            self.rd.remove_stale_temp_files()  # the dead worker's half-written file; no worker runs now
            try:
                return self._pool.map(guarded.evaluate_guarded, tasks)
            except BrokenExecutor:
                raise ToolError(f"worker processes died twice on the same batch (killed, out of memory?); everything "
                                f"so far is kept; resume with: hh run --resume {self.rd.path}") from None

    def count(self, ev: Evaluation) -> None:
        self.counters.evaluations += 1
        if ev.cached:
            self.counters.cache_hits += 1

    def record_fault(self, ev: Evaluation) -> None:
        if ev.failed_gate == INFRA:
            self.counters.infra_faults += 1
            self.counters.infra_first = self.counters.infra_first or ev.message

    def note_fault(self, ev: Evaluation) -> None:
        """Phase 2: count tool faults; after INFRA_STREAK in a row the search stops, resumable, rather
        than anneal on a broken tool (the faulty evaluations are retried on resume)."""
        c = self.counters
        if ev.failed_gate != INFRA:
            c.infra_streak = 0
            return
        self.record_fault(ev)
        c.infra_streak += 1
        if c.infra_streak >= INFRA_STREAK and not self.stop():
            self.stop.reason = "infrastructure"
            self.say(f"hh: {c.infra_streak} tool faults in a row ({ev.message}); stopping the search")


def _worker_init(commands_file: str | None) -> None:
    """Pool workers leave Ctrl-C to the parent (which stops after the iteration, resumable): a worker
    killed by the terminal's SIGINT would break the pool. SIGTERM gets its default action back: a
    forked worker inherits the parent's stop-flag handler, which would make it ignore the SIGTERM the
    pool sends when another worker died, and the pool's shutdown would wait for it forever. A worker dies
    with hh (``rlimits.die_with_parent``): killed hh once left its workers waiting for work forever."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    worker_init(commands_file)
