"""``limits``: what any one candidate and any one tool call may use."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from .model import MAX_TIMEOUT_S, Model


class Limits(Model):
    max_file_bytes: int = Field(default=1_000_000, ge=1)
    max_files: int = Field(default=32, ge=1)
    tool_mem_mb: int = Field(default=4096, ge=64, le=4 * 1024 * 1024)
    tool_timeout_s: float = Field(default=120, ge=1, le=MAX_TIMEOUT_S)  # under a second: no tool starts
    # every external tool in the bubblewrap sandbox (sandbox.py); "off" is an explicit, warned-about choice
    sandbox: Literal["required", "off"] = "required"

    @field_validator("sandbox", mode="before")
    @classmethod
    def _sandbox(cls, v: object) -> object:
        return {False: "off", True: "required"}.get(v, v) if isinstance(v, bool) else v  # YAML reads `off` as false
