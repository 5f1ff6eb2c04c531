"""The base every design.yaml section derives from, and the validation context it reads."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationInfo

MAX_TIMEOUT_S = 7 * 86400.0  # the longest any configured wait may be


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)  # inf/nan is never a setting


def base_of(info: ValidationInfo) -> Path:
    """The folder relative paths are resolved against: the YAML file's (the loader's context)."""
    ctx = info.context or {}
    return Path(ctx.get("base_dir", "."))


