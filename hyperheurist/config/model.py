"""The base every design.yaml section derives from, and the validation context it reads."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationInfo

MAX_TIMEOUT_S = 7 * 86400.0  # the longest any configured wait may be


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)  # inf/nan is never a setting


def base_of(info: ValidationInfo) -> Path:
    """The folder relative paths are resolved against: the YAML file's (the loader's context)."""
    ctx = info.context or {}
    return Path(ctx.get("base_dir", "."))



# the old tunable-value rule, read only by gates/context.py and ppa/synth.py until they call hdl.literals
# (config itself validates with hdl.literals); removed with their last import
PARAM_LITERAL = re.compile(r"^(-?\d+|\d*'[sS]?[bBoOdDhH][0-9a-fA-F_xXzZ?]+|\"[^\"\\\n]*\")$")
