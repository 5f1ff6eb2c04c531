"""Synthesis recipes: the Yosys/ABC knobs, as data a flow preset declares and the annealer varies.

A recipe's ``digest`` names its PPA folders, cache entries and journal records, so the dict it hashes
(``to_dict``) must stay exactly what it was: field names, order and values as given (``strict``: a
YAML ``1`` is not silently ``True``). Knobs added later (``multiplier``, ``adder``, ``adder_cells``) are left out of
it at their default, so every recipe that existed before them keeps its digest, and data without them loads.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from .config import FLOWS_DIR, Weights, format_validation_error, read_yaml_mapping
from .errors import ConfigError

AbcScript = Literal["default", "area", "delay", "resyn2", "fast"]
FsmEncoding = Literal["auto", "binary", "one-hot"]
Multiplier = Literal["yosys", "booth", "wallace"]  # "yosys": its own $mul mapping; else ppa/techmap's
Adder = Literal["yosys", "ripple", "kogge_stone", "sklansky", "han_carlson", "ladner_fischer"]  # $lcu carry trees
ABC_SCRIPTS: tuple[str, ...] = get_args(AbcScript)
FSM_ENCODINGS: tuple[str, ...] = get_args(FsmEncoding)
KnobValue = bool | int | str | None  # what any recipe knob holds
# knobs newer than the first digests: in ``to_dict`` only when not the default
LATER_KNOBS = ("multiplier", "adder", "adder_cells")


class Recipe(BaseModel):
    """One synthesis configuration. ``ppa.synth`` turns it into a Yosys script."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    flatten: bool = True
    fsm: bool = True
    fsm_encoding: FsmEncoding = "auto"
    share: bool = True
    opt_full: bool = False
    abc_script: AbcScript = "default"
    abc_delay_target_ps: int | None = Field(default=None, gt=0)
    multiplier: Multiplier = "yosys"
    adder: Adder = "yosys"
    adder_cells: bool = False  # the library's full/half adder cells for the adders in the logic (ppa.adder_cells)

    def to_dict(self) -> dict[str, KnobValue]:
        d: dict[str, KnobValue] = self.model_dump()
        for knob in LATER_KNOBS:
            if d[knob] == Recipe.model_fields[knob].default:
                del d[knob]
        return d

    @property
    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:12]

    def with_(self, **changes: KnobValue) -> Recipe:
        """This recipe with some knobs changed, validated like any other."""
        return self.from_dict({**self.to_dict(), **changes})

    @classmethod
    def from_dict(cls, data: dict[str, object], where: str = "recipe") -> Recipe:
        """A recipe from plain data (a flow preset, ``--recipe``, a journal); bad data is one ConfigError line."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(format_validation_error(where, exc)) from None


Values = Annotated[list[KnobValue], Field(min_length=1)]


class FlowPreset(BaseModel):
    """A flow preset from ``hyperheurist/flows/<name>.yaml``: the default recipe and the space moves explore."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str = ""
    recipe: Recipe = Recipe()
    space: dict[str, Values] = {}  # knob -> the values the annealer's recipe moves may choose
    weights: dict[str, float] | None = None  # cost weights used when design.yaml sets none

    @field_validator("space")
    @classmethod
    def _space(cls, v: dict[str, Values], info: ValidationInfo) -> dict[str, Values]:
        base = info.data.get("recipe")
        if not isinstance(base, Recipe):
            return v  # the recipe itself failed: that is the error to report
        for knob, values in v.items():
            if knob not in Recipe.model_fields:
                raise ValueError(f"{knob}: not a recipe knob")
            for value in values:
                try:
                    Recipe.model_validate({**base.to_dict(), knob: value})
                except ValidationError as exc:
                    raise ValueError(f"{knob}: {value!r}: {exc.errors()[0]['msg']}") from None
        return v

    @field_validator("weights")
    @classmethod
    def _weights(cls, v: dict[str, float] | None) -> dict[str, float] | None:
        if v is not None:
            try:
                Weights.model_validate(v)  # what the scorer will build from them
            except ValidationError as exc:
                raise ValueError(format_validation_error("weights", exc).removeprefix("weights: ")) from None
        return v


def flow_path(name_or_path: str) -> Path:
    p = FLOWS_DIR / f"{name_or_path}.yaml"
    return p if p.is_file() else Path(name_or_path)


def load_flow(name_or_path: str) -> FlowPreset:
    """A bundled preset by name, or a preset file; any error is one ConfigError line naming file and key."""
    path = flow_path(name_or_path)
    data = read_yaml_mapping(path)
    try:
        return FlowPreset.model_validate({"name": path.stem, **data})
    except ValidationError as exc:
        raise ConfigError(format_validation_error(path, exc)) from None
