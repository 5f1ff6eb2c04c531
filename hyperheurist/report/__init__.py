"""Run and sweep reports: self-contained HTML pages, the terminal summary and sweep aggregation."""

from __future__ import annotations

from .run_page import render_run
from .sweep import aggregate
from .sweep_page import render_sweep, write_sweep
from .terminal import print_terminal_summary, terminal_summary

__all__ = ["aggregate", "print_terminal_summary", "render_run", "render_sweep", "terminal_summary", "write_sweep"]
