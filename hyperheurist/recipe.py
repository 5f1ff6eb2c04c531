"""Synthesis recipes: the Yosys/ABC knobs, as data a flow preset declares and the annealer varies."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from .config import FLOWS_DIR, read_yaml_mapping
from .errors import ConfigError

ABC_SCRIPTS = ("default", "area", "delay", "resyn2", "fast")
FSM_ENCODINGS = ("auto", "binary", "one-hot")


@dataclass(frozen=True)
class Recipe:
    """One synthesis configuration. ``ppa.synth`` turns it into a Yosys script."""

    flatten: bool = True
    fsm: bool = True
    fsm_encoding: str = "auto"
    share: bool = True
    opt_full: bool = False
    abc_script: str = "default"
    abc_delay_target_ps: int | None = None

    def __post_init__(self) -> None:
        if self.abc_script not in ABC_SCRIPTS:
            raise ConfigError(f"recipe.abc_script: {self.abc_script!r} is not one of {', '.join(ABC_SCRIPTS)}")
        if self.fsm_encoding not in FSM_ENCODINGS:
            raise ConfigError(f"recipe.fsm_encoding: {self.fsm_encoding!r} is not one of {', '.join(FSM_ENCODINGS)}")
        if self.abc_delay_target_ps is not None and self.abc_delay_target_ps <= 0:
            raise ConfigError("recipe.abc_delay_target_ps must be positive")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:12]

    def with_(self, **changes: Any) -> Recipe:
        return replace(self, **changes)

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "recipe") -> Recipe:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ConfigError(f"{where}: unknown key {sorted(unknown)[0]!r}")
        return cls(**data)


@dataclass(frozen=True)
class FlowPreset:
    """A flow preset from ``hyperheurist/flows/<name>.yaml``: the default recipe and the space moves explore."""

    name: str
    description: str
    recipe: Recipe
    space: dict[str, tuple[Any, ...]]
    weights: dict[str, float] | None = None


def flow_path(name_or_path: str) -> Path:
    p = FLOWS_DIR / f"{name_or_path}.yaml"
    return p if p.is_file() else Path(name_or_path)


def load_flow(name_or_path: str) -> FlowPreset:
    path = flow_path(name_or_path)
    data = read_yaml_mapping(path)
    allowed = {"name", "description", "recipe", "space", "weights"}
    unknown = set(data) - allowed
    if unknown:
        raise ConfigError(f"{path}: unknown key {sorted(unknown)[0]!r}")
    recipe = Recipe.from_dict(data.get("recipe") or {}, where=f"{path}: recipe")
    known = {f.name for f in fields(Recipe)}
    space: dict[str, tuple[Any, ...]] = {}
    for key, values in (data.get("space") or {}).items():
        if key not in known:
            raise ConfigError(f"{path}: space.{key}: not a recipe knob")
        if not isinstance(values, list) or not values:
            raise ConfigError(f"{path}: space.{key}: expected a non-empty list")
        for v in values:
            Recipe.from_dict({**recipe.to_dict(), key: v}, where=f"{path}: space.{key}")
        space[key] = tuple(values)
    weights = data.get("weights")
    if weights is not None and not isinstance(weights, dict):
        raise ConfigError(f"{path}: weights: expected a mapping")
    return FlowPreset(name=str(data.get("name", path.stem)), description=str(data.get("description", "")),
                      recipe=recipe, space=space, weights=weights)
