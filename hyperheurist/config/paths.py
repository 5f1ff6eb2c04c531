"""Paths named in design.yaml: resolved against the YAML's folder and checked to be inputs the user meant."""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path

from pydantic import ValidationInfo

from ..errors import ConfigError
from ..hdl.filelist import expand
from ..inputs import input_problem
from .model import base_of


def is_file(p: Path) -> bool:
    """``p.is_file()``, False where the name itself is unusable (too long, NUL byte, ...)."""
    try:
        return p.is_file()
    except (OSError, ValueError):
        return False


def path_text(value: object) -> str:
    if not isinstance(value, (str, Path)):
        raise ValueError(f"expected a file path, got {type(value).__name__}")
    return str(value)


def resolve_file(value: object, info: ValidationInfo, must_exist: bool = True) -> Path | None:
    """The absolute path of a file field; no /proc, devices, or links out of the design folder."""
    if value is None:
        return None
    p = Path(path_text(value)).expanduser()
    if not p.is_absolute():
        p = base_of(info) / p
    given, p = p, p.resolve()
    if must_exist and not is_file(p):
        raise ValueError(f"file not found: {p}")
    if is_file(p):
        problem = input_problem(given, base_of(info))
        if problem:
            raise ValueError(problem)
    return p


def absolute_entry(entry: str, base: Path) -> str:
    """A sources entry (``x.v``, ``-f x.f``) with its path made absolute: resolved.yaml holds absolute paths."""
    flag, rest = ("-f ", entry.strip()[3:].strip()) if entry.strip().startswith(("-f ", "-F ")) else ("", entry.strip())
    p = Path(rest).expanduser()
    return flag + str(p if p.is_absolute() else base / p)


def check_sources(entries: list[str], base: Path, env: Collection[str] = ()) -> None:
    """Every entry must resolve (files exist, filelists parse); the ConfigError's text becomes the field's error."""
    try:
        expand(entries, base, "@", env)
    except ConfigError as exc:  # the field's location is added by the loader: no second name here
        raise ValueError(re.sub(r"^@(\[\d+\])?: ", lambda m: f"entry {m.group(1)}: " if m.group(1) else "",
                                str(exc))) from None
