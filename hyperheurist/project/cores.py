"""Sources from a FuseSoC core (CAPI2 ``.core``) or an EDAM file (``.eda.yml``), for ``hh init``.

Only what a design.yaml needs: the Verilog/SystemVerilog files of the default target's filesets
(include files' folders become include dirs) and ``define``-type parameters. Paths are relative to
the core file, as FuseSoC resolves them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..config import read_yaml_mapping
from ..errors import ConfigError
from ..hdl.literals import LiteralError, define
from .filelist import SourceSet

_RTL_TYPES = ("verilogSource", "systemVerilogSource")


def _add(out: SourceSet, base: Path, name: str, ftype: str, include: bool, where: str) -> None:
    if not ftype.startswith(_RTL_TYPES):
        return
    p = (base / name).resolve()
    if not p.is_file():
        raise ConfigError(f"{where}: file not found: {p}")
    if include:
        out.merge(SourceSet(include_dirs=[p.parent]))
    else:
        out.merge(SourceSet(files=[p]))


def _entries(items: object, default_type: str) -> list[tuple[str, str, bool]]:
    """(path, file type, is an include file) of each file entry in a core's YAML list."""
    out: list[tuple[str, str, bool]] = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, str):
            out.append((item, default_type, False))
        elif isinstance(item, dict) and len(item) == 1:  # CAPI2: {path: {file_type:, is_include_file:}}
            name, attrs = next(iter(item.items()))
            attrs = attrs or {}
            out.append((name, attrs.get("file_type", default_type), bool(attrs.get("is_include_file"))))
        elif isinstance(item, dict) and "name" in item:  # EDAM: {name:, file_type:, is_include_file:}
            out.append((item["name"], item.get("file_type", default_type), bool(item.get("is_include_file"))))
    return out


def core_sources(path: Path) -> SourceSet:
    data = read_yaml_mapping(path)
    base = path.resolve().parent
    out = SourceSet()
    if str(path).endswith(".eda.yml"):
        for name, ftype, inc in _entries(data.get("files", []), ""):
            _add(out, base, name, ftype, inc, str(path))
        params = data.get("parameters") or {}
    else:
        filesets = data.get("filesets") or {}
        targets = data.get("targets") or {}
        target: dict[str, Any] = targets.get("default") or next(iter(targets.values()), {}) or {}
        for fs in target.get("filesets") or list(filesets):
            fset = filesets.get(fs)
            if fset is None:
                raise ConfigError(f"{path}: fileset {fs!r} not found")
            for name, ftype, inc in _entries(fset.get("files"), fset.get("file_type", "")):
                _add(out, base, name, ftype, inc, f"{path}: filesets.{fs}")
        params = {k: v for k, v in (data.get("parameters") or {}).items() if k in (target.get("parameters") or [])}
    for k, spec in params.items():
        if isinstance(spec, dict) and spec.get("paramtype") == "vlogdefine":
            value = spec.get("default", "")
            value = "1" if value is True else "0" if value is False else str(value)
            try:
                define(k, value)
            except LiteralError as exc:
                raise ConfigError(f"{path}: {exc}") from None
            out.defines[k] = value
    if not out.files:
        raise ConfigError(f"{path}: no Verilog or SystemVerilog files in the default target")
    return out
