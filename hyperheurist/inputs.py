"""Inputs are the files the user meant: regular files, not kernel or device files, and no link that
quietly leads out of the design folder.

What a design.yaml names is copied into run directories and sent to an LLM (seeds, reference, spec),
so a seed symlinked to a 0600 file elsewhere, or ``reference: /proc/self/environ``, must be refused
at load (exit 2) rather than read. Naming a file outside the design folder by its own path is an
explicit choice and allowed; reaching it through a link inside the folder is not.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

PSEUDO_ROOTS = ("/proc", "/sys", "/dev", "/run")


def _inside(p: Path, root: Path) -> bool:
    try:
        p.relative_to(root)
        return True
    except ValueError:
        return False


def input_problem(given: Path, base: Path | None, *, folder: bool = False) -> str | None:
    """Why ``given`` (absolute, not yet resolved) is not an acceptable input file (with ``folder``: an input
    folder, such as an include folder), or None."""
    try:
        target = given.resolve()
    except (OSError, RuntimeError) as exc:  # a link loop
        return f"cannot resolve {given}: {exc}"
    for root in PSEUDO_ROOTS:
        if _inside(target, Path(root)):
            return f"{given}: {target} is a kernel or device file, not a design input"
    if base is not None:
        base = Path(os.path.abspath(base))
        real_base = base.resolve()
        if _inside(Path(os.path.abspath(given)), base) and not _inside(target, real_base):
            return (f"{given} is a link to {target}, outside the design folder {base}: name {target} itself "
                    "if you mean it")
    try:
        st = target.stat()
    except OSError as exc:
        return f"{given}: {exc.strerror}"
    if folder and not stat.S_ISDIR(st.st_mode):
        return f"{given}: not a folder"
    if not folder and not stat.S_ISREG(st.st_mode):
        return f"{given}: not a regular file"
    return None
