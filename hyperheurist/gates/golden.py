"""The golden side of differential and formal checks: any Candidate, with its modules renamed.

Both sides define the same top module (and often the same helper modules), so every module the
golden defines gets a ``hhref_`` prefix before it is simulated or mitred beside the candidate.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..candidate import Candidate
from .context import is_header, is_verilog
from .lexer import lex

PREFIX = "hhref_"
# packages too: a golden design with a package would otherwise redeclare the candidate's
MODULE_DECL = re.compile(r"\b(?:module|macromodule|package)\s+(?:(?:automatic|static)\s+)?([A-Za-z_][A-Za-z0-9_$]*)")


def module_names(text: str) -> list[str]:
    return MODULE_DECL.findall(lex(text).code)


def renamed(golden: Candidate) -> tuple[list[tuple[str, str]], str]:
    """(files with every defined module prefixed, the renamed top)."""
    names = sorted({n for fname, t in golden.files if is_verilog(fname) for n in module_names(t)},
                   key=len, reverse=True)
    out = []
    for fname, text in golden.files:
        if is_verilog(fname):
            for n in names:
                text = re.sub(rf"(?<![A-Za-z0-9_$]){re.escape(n)}(?![A-Za-z0-9_$])", PREFIX + n, text)
        out.append((fname, text))
    return out, PREFIX + golden.top


def golden_files(golden: Candidate, folder: str) -> tuple[dict[str, str], list[str], str]:
    """The renamed golden as files under ``folder``: (files to write, compilable sources, renamed top)."""
    files, top = renamed(golden)
    out = {f"{folder}/{Path(name).name}": text for name, text in files}
    sources = [f"{folder}/{Path(name).name}" for name, _ in files if is_verilog(name) and not is_header(name)]
    return out, sources, top
