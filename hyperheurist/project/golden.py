"""``hh init --golden DIR``: a snapshot of today's sources as the reference, and its pre-commit entry.

The snapshot copies every source file, and the headers of every include folder and of the source
folders, under DIR with their layout relative to the folder they share; ``DIR/reference.f`` names
them with the same ``+incdir+`` and ``+define+`` lines, so the reference compiles exactly as the design
did. It is a copy, not a link: later edits to the design are judged against it. ``pre-commit-hh.yaml``
beside design.yaml is the hook entry to paste into ``.pre-commit-config.yaml``, with DIR excluded (a
change to the frozen reference alone does not re-gate the design).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ..errors import ConfigError
from ..hdl.filelist import SourceSet
from ..jsonio import write_text_atomic

HEADER_EXT = (".vh", ".svh")
REFERENCE_F = "reference.f"
HOOK_FILE = "pre-commit-hh.yaml"


def _headers(folders: list[Path]) -> list[Path]:
    out: list[Path] = []
    for d in folders:
        if d.is_dir():
            out += sorted(p for p in d.iterdir() if p.is_file() and p.suffix.lower() in HEADER_EXT and p not in out)
    return out


def snapshot(ss: SourceSet, folder: Path, *, force: bool) -> Path:
    """Copy the design's files into ``folder``; return its ``reference.f``. ConfigError when ``folder``
    holds files already (without ``force``) or holds a file of the design itself."""
    folder = folder.resolve()
    files = [p.resolve() for p in ss.files]
    headers = _headers([*ss.include_dirs, *{p.parent for p in files}])
    inside = [p for p in files + headers if p.is_relative_to(folder)]
    if inside:
        raise ConfigError(f"--golden {folder}: holds the design's own file {inside[0]}: name a new folder for the "
                          f"reference copy")
    if folder.exists() and any(folder.iterdir()) and not force:
        raise ConfigError(f"--golden {folder}: not empty (use --force to overwrite)")
    root = Path(os.path.commonpath([str(p.parent) for p in files + headers] + [str(d) for d in ss.include_dirs]))
    for p in files + headers:
        dest = folder / p.relative_to(root)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, dest)
    body = [f"+incdir+{d.resolve().relative_to(root).as_posix()}" for d in ss.include_dirs]
    body += [f"+define+{k}={v}" if v else f"+define+{k}" for k, v in ss.defines.items()]
    body += [p.relative_to(root).as_posix() for p in files]
    ref = folder / REFERENCE_F
    write_text_atomic(ref, "// written by hh init --golden: the design as it was, the reference every change "
                           "must match\n" + "\n".join(body) + "\n")
    return ref


def _git_root(start: Path) -> Path | None:
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return None


def hook_entry(design_yaml: Path, golden: Path) -> str:
    """The ``hh-gate`` hook entry for ``.pre-commit-config.yaml``: paths from the git root (else from the
    design's folder, marked REVIEW), the golden folder excluded."""
    base = design_yaml.parent
    root = _git_root(base)
    top = root or base
    folder = base.relative_to(top).as_posix()
    prefix = "" if folder == "." else f"{folder}/"
    review = "" if root else "   # REVIEW: no git repository found: paths are relative to this folder"
    gold = golden.resolve().relative_to(top).as_posix() if golden.resolve().is_relative_to(top) else str(golden)
    return ("# written by hh init: the hh-gate hook for this design; paste it under the HyperHeurist repository's\n"
            "# `hooks:` in your .pre-commit-config.yaml (see the repository's .pre-commit-hooks.yaml)\n"
            "- id: hh-gate\n"
            f"  args: [{prefix}{design_yaml.name}]{review}\n"
            f"  files: ^{prefix}\n"
            f"  exclude: ^{gold}/     # the frozen reference (hh init --golden): changing it alone re-gates nothing\n")


def write_hook(design_yaml: Path, golden: Path, *, force: bool) -> Path:
    path = design_yaml.parent / HOOK_FILE
    if path.exists() and not force:
        raise ConfigError(f"{path}: already exists (use --force to overwrite)")
    write_text_atomic(path, hook_entry(design_yaml, golden))
    return path

