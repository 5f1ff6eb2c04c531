"""``hh report PATH``: re-render report.html for a run directory, or sweep.html for a sweep results folder."""

from __future__ import annotations

import time
from pathlib import Path

import click

from ..errors import InputError


@click.command("report")
@click.argument("path", type=click.Path(file_okay=False, path_type=Path))
def report(path: Path) -> int:
    """Render PATH/report.html (a run directory) or PATH/sweep.html (a tools/sweep.py results folder).

    The page is one self-contained file: inline CSS and SVG, no scripts, nothing fetched.
    """
    from .run_page import render_run
    from .rundata import is_run_dir
    from .sweep_page import is_sweep_dir, render_sweep

    if not path.is_dir():
        raise InputError(f"{path}: no such directory")
    t0 = time.monotonic()
    if is_run_dir(path):
        out = render_run(path)
    elif is_sweep_dir(path):
        out = render_sweep(path)
    else:
        raise InputError(f"{path}: neither a run directory (summary.json, manifest.json, journal.jsonl) "
                         "nor a sweep results folder (sweep.json, sweep.csv, runs/)")
    click.echo(f"hh: wrote {out} ({out.stat().st_size / 1024:.0f} KB in {time.monotonic() - t0:.2f} s)")
    return 0
