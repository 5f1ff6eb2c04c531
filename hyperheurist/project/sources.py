"""A user's RTL project as a Candidate: sources in order, the headers they include, the defines.

Every stage gets the same files under the same names: headers found through the include folders
travel as candidate files (tools find them beside the sources), the defines as ``Candidate.defines``.
SystemVerilog packages are put first (in import order), so a glob or folder works without the user
ordering files by hand; a filelist's own order is otherwise kept.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..candidate import Candidate
from ..config import DesignConfig
from ..errors import ConfigError, InputError
from ..hdl.filelist import RTL_EXT, SourceSet, expand, parse_filelist
from ..inputs import input_problem

_INCLUDE = re.compile(r'^\s*`include\s+"([^"]+)"', re.M)
_PACKAGE = re.compile(r"^\s*package\s+(?:automatic\s+|static\s+)?([A-Za-z_]\w*)\s*;", re.M)
_IMPORT = re.compile(r"\b([A-Za-z_]\w*)\s*::")
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
MAX_INCLUDES = 256


def _read(p: Path) -> str:
    try:
        return p.read_bytes().decode("utf-8", errors="surrogateescape")
    except OSError as exc:
        raise InputError(f"{p}: cannot read: {exc.strerror}") from None


def package_order(files: list[tuple[Path, str]]) -> list[tuple[Path, str]]:
    """Files declaring packages first, a package after the packages it imports; others keep their order."""
    pkgs: dict[str, int] = {}
    code = [_COMMENTS.sub("", t) for _, t in files]
    for i, text in enumerate(code):
        for name in _PACKAGE.findall(text):
            pkgs.setdefault(name, i)
    if not pkgs:
        return files
    deps = {i: {pkgs[n] for n in _IMPORT.findall(code[i]) if n in pkgs and pkgs[n] != i} for i in set(pkgs.values())}
    ordered: list[int] = []
    visiting: set[int] = set()

    def visit(i: int) -> None:
        if i in ordered or i in visiting:  # a cycle keeps file order; the compiler names it
            return
        visiting.add(i)
        for d in sorted(deps[i]):
            visit(d)
        visiting.discard(i)
        ordered.append(i)

    for i in sorted(deps):
        visit(i)
    return [files[i] for i in ordered] + [f for i, f in enumerate(files) if i not in ordered]


def _headers(files: list[tuple[Path, str]], include_dirs: list[Path], max_bytes: int) -> list[tuple[Path, str]]:
    """Every file reached through `include (transitively), looked up beside the includer, then in the folders."""
    found: dict[str, tuple[Path, str]] = {}
    todo = list(files)
    while todo:
        path, text = todo.pop(0)
        if len(text) > max_bytes:
            continue  # the safety gate refuses the file (limits.max_file_bytes): no need to read it through
        for inc in _INCLUDE.findall(_COMMENTS.sub("", text)):
            if inc in found:
                continue
            if "/" in inc or "\\" in inc:
                continue  # only names are looked up: a path is the safety gate's to judge, with its line
            folder = next((d for d in [path.parent, *include_dirs] if (d / inc).is_file()), None)
            if folder is None:
                continue  # the compile gate names it, with the line
            hit = folder / inc
            problem = input_problem(hit, folder)  # a header linked to a file outside its folder is not read
            if problem:
                raise InputError(problem)
            if hit.suffix.lower() in RTL_EXT:
                raise InputError(f"{hit}: included file ends in {hit.suffix}: name headers .vh or .svh "
                                 f"(.v/.sv files are compiled on their own)")
            if len(found) >= MAX_INCLUDES:
                raise InputError(f"{path}: more than {MAX_INCLUDES} included files")
            found[inc] = (hit, _read(hit))
            todo.append(found[inc])
    return list(found.values())


def candidate_from(ss: SourceSet, design: DesignConfig, *, origin: str, label: str) -> Candidate:
    """The candidate for a source set, with the design's include dirs and defines added to its own."""
    if not ss.files:
        raise InputError("no RTL source files")
    dirs = list(ss.include_dirs) + [d for d in design.include_dirs if d not in ss.include_dirs]
    defines = {**ss.defines, **design.defines}  # design.yaml overrides the filelist
    limit = design.limits.max_file_bytes
    files = [(p, _read(p)) for p in ss.files]
    if all(len(t) <= limit for _, t in files):  # an oversized file is the safety gate's finding, in its order
        files = package_order(files)
    files += _headers(files, dirs, limit)
    names: dict[str, Path] = {}
    for p, _ in files:
        if p.name in names and names[p.name] != p:
            raise InputError(f"two files named {p.name}: {names[p.name]} and {p}: every file of a design needs its "
                             f"own name")
        names[p.name] = p
    return Candidate(files=tuple((p.name, t) for p, t in files), top=design.top, origin=origin, label=label,
                     defines=tuple(sorted(defines.items())))


def design_sources(design: DesignConfig) -> SourceSet:
    if not design.sources:
        raise ConfigError(f"{design.source}: no RTL given: pass files, -f FILELIST, or set sources: in design.yaml")
    return expand(design.sources, design.base_dir or Path("."), f"{design.source}: sources", design.filelist_env)


def cli_sources(design: DesignConfig, files: tuple[str, ...], filelists: tuple[str, ...]) -> SourceSet:
    """Files and ``-f`` filelists from the command line (relative to the cwd); none: the design's ``sources``."""
    if not files and not filelists:
        return design_sources(design)
    out = SourceSet()
    for f in filelists:
        if not Path(f).is_file():
            raise InputError(f"-f {f}: file not found")
        out.merge(parse_filelist(Path(f), env=design.filelist_env))
    for f in files:
        p = Path(f)
        if not p.is_file():
            raise InputError(f"{p}: file not found")
        problem = input_problem(Path(os.path.abspath(p)), None)  # /proc/self/environ, a device
        if problem:
            raise InputError(problem)
        if p.suffix.lower() in (".f", ".vc"):
            out.merge(parse_filelist(p, env=design.filelist_env))
        else:
            out.merge(SourceSet(files=[p.resolve()]))
    return out


def load_candidate(design: DesignConfig, files: tuple[str, ...], filelists: tuple[str, ...], *,
                   origin: str) -> Candidate:
    ss = cli_sources(design, files, filelists)
    return candidate_from(ss, design, origin=origin, label=ss.files[0].name if ss.files else "")


def path_candidate(path: Path, design: DesignConfig, *, origin: str, label: str) -> Candidate:
    """A seed or reference given as one path: a file, a folder (one design) or a filelist."""
    return candidate_from(expand([str(path)], Path("."), str(path)), design, origin=origin, label=label)


def reference_candidate(design: DesignConfig) -> Candidate | None:
    ref = design.verification.reference
    if ref is None:
        return None
    return path_candidate(ref, design, origin="reference", label="reference")
