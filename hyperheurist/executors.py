"""Where candidate evaluations run: a local process pool (default) or a Ray cluster.

Both expose ``map(fn, items) -> list`` (results in submission order, so the search stays
deterministic whatever order workers finish in) and ``shutdown()``.

Ray: ``pip install 'hyperheurist[ray]'``; ``hh run ... --executor ray`` starts a local Ray instance,
or joins a cluster named by ``--ray-address`` / ``RAY_ADDRESS`` (e.g. ``ray://head:10001``). Every
node needs the same tools and the run directory on a shared filesystem, since workers write
candidate folders into it.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Iterable, Protocol

from .errors import ConfigError, ToolError


class Executor(Protocol):
    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]: ...

    def shutdown(self) -> None: ...


class LocalExecutor:
    """A process pool; one job runs inline (no pickling, no worker start-up)."""

    def __init__(self, jobs: int, initializer: Callable[..., None] | None = None, initargs: tuple = ()) -> None:
        self.jobs = jobs
        self._init = (initializer, initargs)
        self._pool: ProcessPoolExecutor | None = None

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        items = list(items)
        if self.jobs <= 1 or len(items) <= 1:
            return [fn(i) for i in items]
        if self._pool is None:
            init, args = self._init
            self._pool = ProcessPoolExecutor(max_workers=self.jobs, initializer=init, initargs=args)
        return list(self._pool.map(fn, items))

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def _ray_call(fn: Callable[[Any], Any], item: Any, initializer: Callable[..., None] | None, initargs: tuple) -> Any:
    if initializer is not None:
        initializer(*initargs)
    return fn(item)


class RayExecutor:
    """Ray tasks, one per item; ``num_cpus=1`` each so Ray schedules by cores across the cluster."""

    def __init__(self, jobs: int | None = None, address: str | None = None,
                 initializer: Callable[..., None] | None = None, initargs: tuple = ()) -> None:
        try:
            import ray
        except ImportError:
            raise ConfigError("--executor ray needs Ray: pip install 'hyperheurist[ray]'") from None
        self._ray = ray
        address = address or os.environ.get("RAY_ADDRESS")
        kwargs: dict[str, Any] = {"ignore_reinit_error": True, "include_dashboard": False, "log_to_driver": False}
        if address:
            kwargs["address"] = address
        elif jobs:
            kwargs["num_cpus"] = jobs
        # workers inherit the driver's environment minus secrets (tools never see API keys)
        from .runner import safe_env

        kwargs["runtime_env"] = {"env_vars": {k: v for k, v in safe_env().items() if k.startswith(("HH_", "PATH"))}}
        try:
            self._started = not ray.is_initialized()
            ray.init(**kwargs)
        except Exception as exc:  # Ray raises many types (ConnectionError, RuntimeError, ...)
            raise ToolError(f"cannot start or reach Ray ({address or 'local'}): {exc}") from None
        self._task = ray.remote(num_cpus=1)(_ray_call)
        self._init = (initializer, initargs)

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        init, args = self._init
        refs = [self._task.remote(fn, item, init, args) for item in items]
        return list(self._ray.get(refs))

    def shutdown(self) -> None:
        if self._started:
            self._ray.shutdown()


def make_executor(kind: str, jobs: int, *, address: str | None = None,
                  initializer: Callable[..., None] | None = None, initargs: tuple = ()) -> Executor:
    if kind == "local":
        return LocalExecutor(jobs, initializer, initargs)
    if kind == "ray":
        return RayExecutor(jobs, address, initializer, initargs)
    raise ConfigError(f"--executor: unknown executor {kind!r} (local or ray)")
