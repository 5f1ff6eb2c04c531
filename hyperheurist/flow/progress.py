"""The live annealing line on a terminal (iteration, temperature, best cost, acceptance, ETA)."""

from __future__ import annotations

import sys

from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from ..search.annealer import Progress as Iteration


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

    def update(self, info: Iteration) -> None:
        if self.progress is None or self.task is None:
            return
        best = info["best_cost"]
        text = (f"T={info['temperature']:.3g} best={best if best is not None else float('nan'):.4f} "
                f"acc={info['acceptance_rate']:.0%}")
        self.progress.update(self.task, completed=info["iteration"] + 1, info=text)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()
