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


IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")


def identifier(v: str, what: str = "Verilog identifier") -> str:
    if not IDENT.match(v):
        raise ValueError(f"not a {what}: {v!r}")
    return v


# a tunable value ends up in Yosys' -chparam and generated Verilog: the constants synthesis accepts
# (ppa.synth's rule: a decimal integer, a based literal or a string; no `1_000`, no bare identifier),
# checked here so a value that cannot work is a config error at load, never a fault in every synthesis
PARAM_LITERAL = re.compile(r"^(-?\d+|\d*'[sS]?[bBoOdDhH][0-9a-fA-F_xXzZ?]+|\"[^\"\\\n]*\")$")
