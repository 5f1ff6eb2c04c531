"""Sources from a FuseSoC core (CAPI2 ``.core``) or an EDAM file (``.eda.yml``), for ``hh init``.

Only what a design.yaml needs: the Verilog/SystemVerilog files of the default target's filesets
(include files' folders become include dirs) and ``vlogdefine`` parameters. Paths are relative to
the core file, as FuseSoC resolves them. As in FuseSoC/Edalize, a ``vlogdefine`` is defined only when it
has a value: its ``default``, a ``NAME=VALUE`` in the target's ``parameters`` list, or one the user passes
(``hh init --define NAME[=VALUE]``); one with no value stays undefined (a core's ``ifdef RISCV_FORMAL``
ports stay out) and is named in :attr:`Core.optional`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import read_yaml_mapping
from ..errors import ConfigError
from ..hdl.filelist import SourceSet
from ..hdl.literals import LiteralError, define

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


@dataclass
class Core:
    sources: SourceSet
    optional: list[str] = field(default_factory=list)  # vlogdefines with no value, left undefined


def _value(value: object) -> str:
    return "1" if value is True else "0" if value is False else str(value)


def read_core(path: Path, given: Mapping[str, str] | None = None) -> Core:
    """The core's sources; ``given``: the user's defines (``--define``), which set a vlogdefine's value."""
    given = given or {}
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
        declared = data.get("parameters") or {}
        params = {}
        for entry in target.get("parameters") or []:  # NAME or NAME=VALUE (the target's own value)
            name, eq, value = str(entry).partition("=")
            if name in declared:
                spec = dict(declared[name]) if isinstance(declared[name], dict) else {}
                if eq:
                    spec["default"] = value
                params[name] = spec
    optional = []
    for k, spec in params.items():
        if not (isinstance(spec, dict) and spec.get("paramtype") == "vlogdefine"):
            continue
        if k in given:
            value = given[k]
        elif spec.get("default") is None:  # FuseSoC passes a parameter with no value to no tool
            optional.append(k)
            continue
        else:
            value = _value(spec["default"])
        try:
            define(k, value)
        except LiteralError as exc:
            raise ConfigError(f"{path}: {exc}") from None
        out.defines[k] = value
    if not out.files:
        raise ConfigError(f"{path}: no Verilog or SystemVerilog files in the default target")
    return Core(out, optional)


def core_sources(path: Path, given: Mapping[str, str] | None = None) -> SourceSet:
    return read_core(path, given).sources
