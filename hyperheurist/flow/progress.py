"""The live annealing line on a terminal (iteration, temperature, best cost, acceptance, ETA)."""

from __future__ import annotations

import sys
from typing import Any

from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn


class AnnealProgress:
    """Silent with --quiet or when stderr is not a terminal."""

    def __init__(self, total: int, quiet: bool) -> None:
        self.progress: Progress | None = None
        self.task: TaskID | None = None
        if not (quiet or not sys.stderr.isatty()):
            self.progress = Progress(TextColumn("[bold]anneal[/]"), BarColumn(),
                                     TextColumn("{task.completed}/{task.total}"), TextColumn("{task.fields[info]}"),
                                     TimeRemainingColumn(), transient=True)
            self.task = self.progress.add_task("anneal", total=total, info="")
            self.progress.start()

    def update(self, info: dict[str, Any]) -> None:
        if self.progress is None or self.task is None:
            return
        text = (f"T={info.get('temperature', 0):.3g} best={info.get('best_cost', float('nan')):.4f} "
                f"acc={info.get('acceptance_rate', 0):.0%}")
        self.progress.update(self.task, completed=info.get("iteration", 0) + 1, info=text)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()
