"""Reading design.yaml: YAML to a validated ``DesignConfig``, every error one line naming file and field."""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any, get_args

import yaml
from pydantic import BaseModel, ValidationError

from ..errors import ConfigError
from . import yamlsafe
from .design import DesignConfig

PLAIN_KEY = re.compile(r"[A-Za-z0-9_$-]+")


def _format_loc(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            text = str(part)
            if not PLAIN_KEY.fullmatch(text):  # a key with blanks, newlines, dots...: quoted
                text = repr(text)
            out += ("." if out else "") + text
    return out or "(top level)"


_INTERNAL = {"source", "base_dir"}  # DesignConfig fields the loader fills, never keys of the file


def _model_in(tp: Any) -> type[BaseModel] | None:
    """The pydantic model an annotation holds (``X``, ``X | None``, ``list[X]``), or None."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return tp
    for arg in get_args(tp):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _keys_at(model: type[BaseModel], loc: tuple[int | str, ...]) -> list[str]:
    """The keys accepted by the mapping at ``loc`` (where an unknown key sits), or [] when it is not a model."""
    node: Any = model
    for part in loc:
        node = _model_in(node)
        if node is None:
            return []
        if isinstance(part, int):  # an item of a list of models
            continue
        field = node.model_fields.get(part) or next((f for f in node.model_fields.values() if f.alias == part), None)
        if field is None:
            return []
        node = field.annotation
    found = _model_in(node)
    if found is None:
        return []
    return sorted((f.alias or n) for n, f in found.model_fields.items() if not (found is model and n in _INTERNAL))


def _unknown_key(model: type[BaseModel] | None, loc: tuple[int | str, ...]) -> str:
    """``unknown key``, with the keys that place takes and the closest one when ``model`` is known."""
    keys = _keys_at(model, loc[:-1]) if model is not None else []
    if not keys:
        return "unknown key"
    close = difflib.get_close_matches(str(loc[-1]), keys, n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    return f"unknown key ({hint}valid: {', '.join(keys)})"


def format_validation_error(path: str | Path, exc: ValidationError, model: type[BaseModel] | None = None) -> str:
    """``path: field.sub[2]: what is wrong (+N more)``: one line, the first error that explains the others;
    with ``model``, an unknown key is told the keys its place takes."""
    errs = exc.errors()
    # a misspelt key explains the "missing" error it causes: name it first
    first = next((e for e in errs if e["type"] == "extra_forbidden"), errs[0])
    parts = tuple(p for p in first["loc"] if not str(p).startswith("function-"))
    loc = _format_loc(parts)
    msg = first["msg"].removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        msg = _unknown_key(model, parts)
    elif first["type"] == "missing":
        msg = "required field is missing"
    more = f" (+{len(errs) - 1} more)" if len(errs) > 1 else ""
    msg = " ".join(str(msg).split())  # one line, whatever the offending value held
    return f"{path}: {loc}: {msg}{more}"


def _set_dotted(data: dict[str, Any], dotted: str, value: object) -> None:
    keys = dotted.split(".")
    node = data
    for k in keys[:-1]:
        nxt = node.get(k)
        if not isinstance(nxt, dict):
            nxt = {}
            node[k] = nxt
        node = nxt
    node[keys[-1]] = value


def read_yaml_mapping(path: Path) -> dict[str, Any]:
    """Read a YAML file that must hold a mapping; errors name the file and line."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: file not found")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        data = yamlsafe.load(text)
    except yamlsafe.YamlLimitError as exc:
        where = f":{exc.line}" if exc.line else ""
        raise ConfigError(f"{path}{where}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)  # only MarkedYAMLError carries a position
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{path}{where}: YAML syntax error: {problem}") from None
    if data is None:
        raise ConfigError(f"{path}: file is empty")
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: top level must be a mapping, got {type(data).__name__}")
    return data


def load_design(path: str | Path, overrides: dict[str, Any] | None = None) -> DesignConfig:
    """Load and validate a design.yaml; ``overrides`` maps dotted keys to values."""
    path = Path(path).expanduser().resolve()
    data = read_yaml_mapping(path)
    for k, v in (overrides or {}).items():
        _set_dotted(data, k, v)
    data.pop("source", None)
    data.pop("base_dir", None)
    gen = data.get("generation")
    if isinstance(gen, dict) and isinstance(gen.get("seeds"), str):  # before validation: it globs the pattern
        seeds = Path(gen["seeds"]).expanduser()
        _check_seed_glob(path, str(seeds if seeds.is_absolute() else path.parent / seeds))
    try:
        cfg = DesignConfig.model_validate(data, context={"base_dir": path.parent})
    except ValidationError as exc:
        raise ConfigError(format_validation_error(path, exc, DesignConfig)) from None
    return cfg.model_copy(update={"source": path, "base_dir": path.parent})


def _check_seed_glob(path: Path, seeds: str | None) -> None:
    """A wildcard in a folder part of ``generation.seeds`` walks a tree: only inside the design folder
    (``seeds: /**/*.v`` would read the whole file system as candidates)."""
    if not seeds:
        return
    parts = Path(seeds).parts
    wild = next((i for i, p in enumerate(parts) if any(c in p for c in "*?[")), len(parts))
    if wild >= len(parts) - 1:
        return  # a plain folder, or wildcards in the file name only
    root = Path(*parts[:wild]).resolve()
    if not root.is_relative_to(path.parent):
        raise ConfigError(f"{path}: generation.seeds: {seeds}: a folder wildcard outside the design folder "
                          f"({root} is not inside {path.parent})")


def parse_override(text: str) -> tuple[str, Any]:
    """``key.sub=value`` from the CLI; the value is parsed as YAML (numbers, booleans, lists)."""
    if "=" not in text:
        raise ConfigError(f"--set {text}: expected KEY=VALUE")
    key, raw = text.split("=", 1)
    try:
        value = yaml.safe_load(raw)
    except yaml.YAMLError:
        value = raw
    return key.strip(), value
