"""Where candidate evaluations run: a local process pool (default) or a Ray cluster.

Both expose ``map(fn, items, progress=None) -> list`` (results in submission order, so the search
stays deterministic whatever order workers finish in; ``progress(index, result)`` is called as each
item finishes, in completion order) and ``shutdown()``.

Ray: ``pip install 'hyperheurist[ray]'``; ``hh run ... --executor ray`` starts a local Ray instance,
or joins a cluster named by ``--ray-address`` / ``RAY_ADDRESS`` (``host:6379`` on a cluster node, or
``ray://head:10001`` through Ray Client). Every node needs the same tools, this package importable
by the workers' Python (same repository path, ``pip install -e .``), and the run directory on a
shared filesystem, since workers write candidate folders into it. See README "Scaling out with Ray".
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, NotRequired, Protocol, TypedDict, TypeVar

from .errors import ConfigError, HHError, ToolError

T = TypeVar("T")
R = TypeVar("R")
RAY_HINT = ("every Ray worker needs this package importable (same repository path, pip install -e .) "
            "and the same tools; see README 'Scaling out with Ray'")


class Executor(Protocol):
    def map(self, fn: Callable[[T], R], items: Iterable[T],
            progress: Callable[[int, R], None] | None = None) -> list[R]: ...

    def shutdown(self) -> None: ...


class LocalExecutor:
    """A process pool; one job runs inline (no pickling, no worker start-up)."""

    def __init__(self, jobs: int, initializer: Callable[..., None] | None = None,
                 initargs: tuple[Any, ...] = ()) -> None:
        self.jobs = jobs
        self._init = (initializer, initargs)
        self._pool: ProcessPoolExecutor | None = None

    def map(self, fn: Callable[[T], R], items: Iterable[T],
            progress: Callable[[int, R], None] | None = None) -> list[R]:
        todo = list(items)
        if self.jobs <= 1 or len(todo) <= 1:
            out: list[R] = []
            for i, item in enumerate(todo):
                out.append(fn(item))
                if progress is not None:
                    progress(i, out[-1])
            return out
        if self._pool is None:
            init, args = self._init
            self._pool = ProcessPoolExecutor(max_workers=self.jobs, initializer=init, initargs=args)
        if progress is None:
            return list(self._pool.map(fn, todo))
        futures = {self._pool.submit(fn, item): i for i, item in enumerate(todo)}
        results: dict[int, R] = {}
        for fut in as_completed(futures):
            i = futures[fut]
            results[i] = fut.result()
            progress(i, results[i])
        return [results[i] for i in range(len(todo))]

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def _ray_call(fn: Callable[[Any], Any], item: Any, initializer: Callable[..., None] | None,
              initargs: tuple[Any, ...]) -> Any:
    if initializer is not None:
        initializer(*initargs)
    return fn(item)


class RuntimeEnv(TypedDict):
    env_vars: dict[str, str]  # ray_env_vars()


class RayInit(TypedDict):
    """The keyword arguments hh gives ``ray.init``."""

    ignore_reinit_error: bool
    include_dashboard: bool
    log_to_driver: bool
    address: str  # a cluster's, or "local": a new local instance, never a stale or foreign one on this machine
    num_cpus: NotRequired[int]
    runtime_env: RuntimeEnv
    _temp_dir: NotRequired[str]  # a private instance's folder (RayGuard's)


def ray_env_vars(environ: dict[str, str] | None = None) -> dict[str, str]:
    """What the workers get from the driver's environment: ``HH_*`` settings (tool overrides, cache
    folder) and ``PATH``; never secrets (tools never see API keys)."""
    from .secrets import SECRET_ENV

    env = dict(os.environ if environ is None else environ)
    return {k: v for k, v in env.items() if k.startswith(("HH_", "PATH")) and not SECRET_ENV.search(k)}


# The guardian of a private Ray instance (run as ``python -I -S -c RAY_GUARD FOLDER HH_PID``, in a session of its
# own): it waits for end-of-file on its stdin, a pipe whose write end only hh holds (closed by hh's shutdown or by
# the kernel when hh dies), then kills every process that holds the instance's folder (Ray's temp dir: the head
# processes name it on their command line, every Ray process, agents and workers included, keeps its log files
# there open) until none is left, and removes the folder.
RAY_GUARD = r"""
import os, shutil, signal, sys, time
root, owner, me = sys.argv[1], sys.argv[2], str(os.getpid())
while os.read(0, 4096):
    pass

def names(proc):
    try:
        fds = ["fd/" + fd for fd in os.listdir(proc + "/fd")]
    except OSError:
        fds = []
    for rel in ["cwd", *fds]:
        try:
            yield os.readlink(proc + "/" + rel)
        except OSError:
            pass

def ours(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            if root.encode() + b"/" in fh.read():
                return True
    except OSError:
        return False
    return any(n == root or n.startswith(root + "/") for n in names(f"/proc/{pid}"))

deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    left = [int(p) for p in os.listdir("/proc") if p.isdigit() and p not in (me, owner) and ours(p)]
    if not left:
        break
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    time.sleep(0.1)
shutil.rmtree(root, ignore_errors=True)
"""


class RayGuard:
    """A private Ray instance's folder and its guardian (``RAY_GUARD``): whether hh shuts Ray down, exits on an
    error or Ctrl-C, or is killed (SIGKILL, the OOM killer), no process of the instance outlives it for longer
    than a scan of /proc (Ray's own agents otherwise linger ~2 minutes after a killed driver, its workers
    until they notice), and the folder goes too."""

    def __init__(self) -> None:
        from .tempdirs import make_owned

        # where Ray itself would go (RAY_TMPDIR, else TMPDIR), unless its longest socket path there (this folder,
        # then session_<date>_<pid>/sockets/plasma_store) would pass AF_UNIX's 107 bytes: then /tmp
        base = os.environ.get("RAY_TMPDIR") or tempfile.gettempdir()
        fits = len(base.encode()) + 85 + 2 * len(str(os.getpid())) <= 107
        self.folder = make_owned("hh-ray-", Path(base if fits else "/tmp"))
        try:
            self._proc = subprocess.Popen([sys.executable, "-I", "-S", "-c", RAY_GUARD, str(self.folder),
                                           str(os.getpid())], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, cwd="/", start_new_session=True)
        except OSError:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise

    def close(self, wait_s: float = 30.0) -> None:
        """End the instance's processes that are left and remove its folder (waits up to ``wait_s``)."""
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            pass


class RayExecutor:
    """Ray tasks, one per item; ``num_cpus=1`` each so Ray schedules by cores across the cluster."""

    def __init__(self, jobs: int | None = None, address: str | None = None,
                 initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = ()) -> None:
        try:
            import ray
        except ImportError:
            raise ConfigError("--executor ray needs Ray: pip install 'hyperheurist[ray]'") from None
        self._ray = ray
        address = address or os.environ.get("RAY_ADDRESS")
        self.address = address
        kwargs: RayInit = {"ignore_reinit_error": True, "include_dashboard": False, "log_to_driver": False,
                           "address": address or "local", "runtime_env": {"env_vars": ray_env_vars()}}
        if not address and jobs:
            kwargs["num_cpus"] = jobs
        self._started = not ray.is_initialized()
        self._guard: RayGuard | None = None
        if self._started and not address:  # a private instance: it goes when hh goes, however hh goes
            try:
                self._guard = RayGuard()
            except OSError as exc:
                raise ToolError(f"cannot start Ray's guardian process: {exc.strerror or exc}") from None
            kwargs["_temp_dir"] = str(self._guard.folder)
        try:
            ray.init(**kwargs)
        except Exception as exc:  # Ray raises many types (ConnectionError, RuntimeError, ...)
            if self._guard is not None:
                self._guard.close()
            hint = ""
            if address:
                hint = (" (is the cluster up, and does it use token authentication? then set RAY_AUTH_MODE=token"
                        " and make its token available to this machine)")
            raise ToolError(f"cannot start or reach Ray ({address or 'local'}): {exc}{hint}") from None
        self._task = ray.remote(num_cpus=1)(_ray_call)
        self._init = (initializer, initargs)

    def _unwrap(self, exc: BaseException) -> BaseException:
        """A Ray task error as the original HHError, else a ToolError naming the usual cause."""
        cause = getattr(exc, "cause", None)
        if isinstance(cause, HHError):
            return cause
        first = (str(cause or exc).strip().splitlines() or [type(exc).__name__])[-1]
        return ToolError(f"a Ray task failed: {first[:300]}; {RAY_HINT}")

    def map(self, fn: Callable[[T], R], items: Iterable[T],
            progress: Callable[[int, R], None] | None = None) -> list[R]:
        init, args = self._init
        refs = [self._task.remote(fn, item, init, args) for item in items]
        ray = self._ray
        try:
            if progress is None:
                return list(ray.get(refs))
            index = {r: i for i, r in enumerate(refs)}
            results: dict[int, R] = {}
            pending = list(refs)
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for r in done:
                    i = index[r]
                    results[i] = ray.get(r)
                    progress(i, results[i])
            return [results[i] for i in range(len(refs))]
        except ray.exceptions.RayError as exc:
            # The other tasks are left to finish (their results are dropped): ray.cancel racing a task that is
            # completing aborts the driver process in Ray 2.x ("Tried to complete task that was not pending"),
            # which once took the whole test run down with it.
            raise self._unwrap(exc) from None

    def shutdown(self) -> None:
        if self._started:
            try:
                self._ray.shutdown()
            finally:
                if self._guard is not None:
                    self._guard.close()
                    self._guard = None


def make_executor(kind: str, jobs: int, *, address: str | None = None,
                  initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = ()) -> Executor:
    if kind == "local":
        return LocalExecutor(jobs, initializer, initargs)
    if kind == "ray":
        return RayExecutor(jobs, address, initializer, initargs)
    raise ConfigError(f"--executor: unknown executor {kind!r} (local or ray)")
