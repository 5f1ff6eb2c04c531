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
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, Protocol, TypeVar

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


def ray_env_vars(environ: dict[str, str] | None = None) -> dict[str, str]:
    """What the workers get from the driver's environment: ``HH_*`` settings (tool overrides, cache
    folder) and ``PATH``; never secrets (tools never see API keys)."""
    from .secrets import SECRET_ENV

    env = dict(os.environ if environ is None else environ)
    return {k: v for k, v in env.items() if k.startswith(("HH_", "PATH")) and not SECRET_ENV.search(k)}


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
        kwargs: dict[str, Any] = {"ignore_reinit_error": True, "include_dashboard": False, "log_to_driver": False}
        if address:
            kwargs["address"] = address
        else:
            kwargs["address"] = "local"  # a new local instance, never a stale or foreign one on this machine
            if jobs:
                kwargs["num_cpus"] = jobs
        kwargs["runtime_env"] = {"env_vars": ray_env_vars()}
        try:
            self._started = not ray.is_initialized()
            ray.init(**kwargs)
        except Exception as exc:  # Ray raises many types (ConnectionError, RuntimeError, ...)
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
            self._ray.shutdown()


def make_executor(kind: str, jobs: int, *, address: str | None = None,
                  initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = ()) -> Executor:
    if kind == "local":
        return LocalExecutor(jobs, initializer, initargs)
    if kind == "ray":
        return RayExecutor(jobs, address, initializer, initargs)
    raise ConfigError(f"--executor: unknown executor {kind!r} (local or ray)")
