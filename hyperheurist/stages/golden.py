"""The golden side of differential and formal checks: any Candidate, with its modules renamed.

Both sides define the same top module (and often the same helper modules), so every module the
golden defines gets a ``hhref_`` prefix before it is simulated or mitred beside the candidate.
"""

from __future__ import annotations

from pathlib import Path

from ..candidate import Candidate
from ..hdl.filenames import is_header, is_verilog
from ..hdl.rename import declared_names, prefix_names

PREFIX = "hhref_"


def renamed(golden: Candidate) -> tuple[list[tuple[str, str]], str]:
    """(files with every defined module and package prefixed, on identifier tokens only; the renamed top)."""
    names = {n for fname, t in golden.files if is_verilog(fname) for n in declared_names(t)}
    out = [(fname, prefix_names(t, names, PREFIX) if is_verilog(fname) else t) for fname, t in golden.files]
    return out, PREFIX + golden.top


def golden_files(golden: Candidate, folder: str) -> tuple[dict[str, str], list[str], str]:
    """The renamed golden as files under ``folder``: (files to write, compilable sources, renamed top)."""
    files, top = renamed(golden)
    out = {f"{folder}/{Path(name).name}": text for name, text in files}
    sources = [f"{folder}/{Path(name).name}" for name, _ in files if is_verilog(name) and not is_header(name)]
    return out, sources, top
