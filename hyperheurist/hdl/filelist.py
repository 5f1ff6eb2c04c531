"""Source sets: files, globs, folders and ``-f`` filelists (with ``+incdir+`` and ``+define+``).

Pure path logic, no design knowledge: ``hyperheurist.config`` validates with it and ``project.sources`` turns
a source set into a Candidate. A filelist is the format simulators and FuseSoC/EDAM flows share:
one entry per line (or several on a line), ``//`` and ``#`` comments, ``-f``/``-F`` nesting,
``+incdir+A+B``, ``-I A``, ``+define+X=1+Y``, ``-D X=1``; relative paths are relative to the
filelist's folder (``-F``, and ``-f`` too: a design's filelist must not depend on the caller's cwd);
``$VAR``/``${VAR}`` are expanded from the environment only for the names design.yaml lists in ``filelist_env``
and never for a name that looks like a secret (hh's own environment holds the LLM key). Every file named is an
input like any other (``inputs.input_problem``): no kernel or device file, no link from inside a folder that
leads out of it, regular files only.
"""

from __future__ import annotations

import glob
import os
import re
import shlex
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError
from ..hdl.literals import LiteralError, define
from ..inputs import input_problem
from ..secrets import is_secret_name

RTL_EXT = (".v", ".sv")
FILELIST_EXT = (".f", ".vc", ".fl")
MAX_DEPTH = 16
_ENV = re.compile(r"\$\{(\w+)\}|\$(\w+)")
_IGNORED = ("-v", "-y")  # library files/folders: not supported, named in the error


@dataclass
class SourceSet:
    files: list[Path] = field(default_factory=list)  # compile order, no repeats
    include_dirs: list[Path] = field(default_factory=list)
    defines: dict[str, str] = field(default_factory=dict)

    def merge(self, other: SourceSet) -> None:
        for p in other.files:
            if p not in self.files:
                self.files.append(p)
        for d in other.include_dirs:
            if d not in self.include_dirs:
                self.include_dirs.append(d)
        self.defines.update(other.defines)


def is_filelist(text: str) -> bool:
    return text.lower().endswith(FILELIST_EXT)


def _expand_env(text: str, where: str, env: Collection[str]) -> str:
    def sub(m: re.Match[str]) -> str:
        var = m.group(1) or m.group(2)
        if is_secret_name(var):
            raise ConfigError(f"{where}: ${var} names a secret; it is never expanded in a filelist")
        if var not in env:
            raise ConfigError(f"{where}: ${var}: a filelist's environment variables are expanded only when "
                              "design.yaml names them in filelist_env")
        if var not in os.environ:
            raise ConfigError(f"{where}: ${var} is not set")
        return os.environ[var]
    return _ENV.sub(sub, text)


def _define(text: str, out: SourceSet, where: str) -> None:
    name, _, value = text.partition("=")
    try:
        define(name, value)
    except LiteralError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    out.defines[name] = value


def parse_filelist(path: Path, depth: int = 0, env: Collection[str] = ()) -> SourceSet:
    """Read a filelist; errors name the filelist and line. ``env``: the variables it may expand."""
    _check_input(Path(os.path.abspath(path)), None, str(path))
    path = Path(path).resolve()
    if depth > MAX_DEPTH:
        raise ConfigError(f"{path}: filelists nested more than {MAX_DEPTH} deep")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read filelist: {getattr(exc, 'strerror', None) or exc}") from None
    out = SourceSet()
    base = path.parent
    for n, raw in enumerate(lines, 1):
        where = f"{path}:{n}"
        line = re.sub(r"(^|\s)(//|#).*$", "", raw).strip()
        if not line:
            continue
        try:
            tokens = shlex.split(_expand_env(line, where, env))
        except ValueError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            if tok in ("-f", "-F") or tok in ("-I", "-D"):
                if nxt is None:
                    raise ConfigError(f"{where}: {tok} needs an argument")
                i += 1
                if tok == "-I":
                    out.merge(SourceSet(include_dirs=[_dir(base, nxt, where)]))
                elif tok == "-D":
                    _define(nxt, out, where)
                else:
                    out.merge(parse_filelist(_file(base, nxt, where), depth + 1, env))
            elif tok.startswith("+incdir+"):
                for d in filter(None, tok[len("+incdir+"):].split("+")):
                    out.merge(SourceSet(include_dirs=[_dir(base, d, where)]))
            elif tok.startswith("+define+"):
                for d in filter(None, tok[len("+define+"):].split("+")):
                    _define(d, out, where)
            elif tok.startswith("-I") and len(tok) > 2:
                out.merge(SourceSet(include_dirs=[_dir(base, tok[2:], where)]))
            elif tok.startswith("-D") and len(tok) > 2:
                _define(tok[2:], out, where)
            elif tok in _IGNORED or tok.startswith(("+libext+", "-", "+")):
                raise ConfigError(f"{where}: option {tok!r} is not supported (files, -f/-F, +incdir+, -I, "
                                  f"+define+, -D)")
            else:
                out.merge(SourceSet(files=[_file(base, tok, where)]))
            i += 1
    return out


def _check_input(given: Path, base: Path | None, where: str) -> None:
    problem = input_problem(given, base)
    if problem:
        raise ConfigError(f"{where}: {problem}")


def _file(base: Path, text: str, where: str) -> Path:
    given = Path(text).expanduser()
    given = given if given.is_absolute() else base / given
    p = given.resolve()
    if not p.is_file():
        raise ConfigError(f"{where}: file not found: {p}")
    _check_input(given, base, where)
    return p


def _dir(base: Path, text: str, where: str) -> Path:
    given = Path(text).expanduser()
    given = given if given.is_absolute() else base / given
    p = given.resolve()
    if not p.is_dir():
        raise ConfigError(f"{where}: include folder not found: {p}")
    problem = input_problem(given, base, folder=True)  # its headers are read into the candidate
    if problem:
        raise ConfigError(f"{where}: {problem}")
    return p


def expand_entry(entry: str, base: Path, where: str, env: Collection[str] = ()) -> SourceSet:
    """One ``sources:`` entry: a file, a glob, a folder (its .v/.sv files) or a filelist (``-f X`` or ``X.f``)."""
    text = entry.strip()
    if text.startswith(("-f ", "-F ")):
        return parse_filelist(_file(base, text[3:].strip(), where), env=env)
    p = Path(text).expanduser()
    p = p if p.is_absolute() else base / p
    if glob.has_magic(text):
        matches = sorted(Path(m) for m in glob.glob(str(p), recursive=True))
        files = [m for m in matches if m.is_file()]
        if not files:
            raise ConfigError(f"{where}: no file matches {text}")
        out = SourceSet()
        for m in files:
            _check_input(m, base, where)
            m = m.resolve()
            out.merge(parse_filelist(m, env=env) if is_filelist(m.name) else SourceSet(files=[m]))
        return out
    if p.resolve().is_dir():
        folder = p.resolve()
        listed = sorted(f for f in p.iterdir() if f.is_file() and f.suffix.lower() in RTL_EXT)
        if not listed:
            raise ConfigError(f"{where}: no .v or .sv file in {folder}")
        for f in listed:  # a link in the folder to a file elsewhere is refused, like any input's
            _check_input(f, p, where)
        return SourceSet(files=[f.resolve() for f in listed], include_dirs=[folder])
    if not p.resolve().is_file():
        raise ConfigError(f"{where}: file not found: {p.resolve()}")
    _check_input(p, base, where)
    p = p.resolve()
    return parse_filelist(p, env=env) if is_filelist(p.name) else SourceSet(files=[p])


def expand(entries: list[str], base: Path, where: str, env: Collection[str] = ()) -> SourceSet:
    out = SourceSet()
    for i, e in enumerate(entries):
        out.merge(expand_entry(e, base, f"{where}[{i}]" if len(entries) > 1 else where, env))
    return out
