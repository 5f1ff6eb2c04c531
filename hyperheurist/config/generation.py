"""``generation``: where Phase-1 candidates come from (seeds, an LLM endpoint) and what the LLM may spend."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from ..hdl.filelist import is_filelist
from .model import MAX_TIMEOUT_S, Model, base_of
from .paths import is_file, resolve_file

# generation keys renamed so a run budget cannot be read as a per-request cap
RENAMED_GENERATION = {"max_requests": "budget.requests", "max_tokens": "budget.tokens", "max_cost": "budget.cost"}


class RunBudget(Model):
    """What one run may spend on the LLM in all (not a per-request cap: that is ``profile.output_tokens``)."""

    requests: int = Field(default=200, ge=0)
    tokens: int = Field(default=2_000_000, ge=0)
    cost: float | None = Field(default=None, ge=0)  # with price_per_mtok_in/out


class ModelProfile(Model):
    """Overrides of what hh learns about an endpoint's model (``RUN_DIR/llm_profile.json``); null = learn it."""

    token_param: Literal["max_tokens", "max_completion_tokens"] | None = None
    temperature: Literal["send", "omit"] | None = None  # reasoning models take only their default
    seed: Literal["send", "omit"] | None = None
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None  # sent only when set
    output_tokens: int | None = Field(default=None, ge=16)  # per-request output cap (default 4096)
    context_length: int | None = Field(default=None, ge=256)


class Generation(Model):
    provider: Literal["offline", "openai", "files"] = "offline"
    seeds: str | None = None
    model: str = "gpt-4o-mini"
    base_url: str | None = None
    temperature: float = Field(default=0.8, ge=0, le=2)
    candidates: int = Field(default=8, ge=1, le=256)
    repair_attempts: int = Field(default=2, ge=0, le=20)
    budget: RunBudget = RunBudget()
    profile: ModelProfile = ModelProfile()
    max_output_tokens: int = Field(default=16384, ge=16)  # ceiling when an empty reply was cut off (length)
    extra_body: dict[str, Any] = {}  # sent as is with every request (Ollama: {options: {num_ctx: 16384}})
    stream: bool | Literal["auto"] = "auto"  # auto: stream from servers on this machine or a private network
    idle_timeout_s: float = Field(default=120, gt=0, le=MAX_TIMEOUT_S)  # streamed: longest silence
    request_timeout_s: float = Field(default=120, gt=0, le=MAX_TIMEOUT_S)  # not streamed: whole reply
    retries: int = Field(default=4, ge=0, le=20)
    rules_file: Path | None = None
    critique: bool = False  # ask the LLM to vet each LLM move's proposal before tools run on it
    price_per_mtok_in: float | None = None
    price_per_mtok_out: float | None = None

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data: Any) -> Any:  # any YAML value: field checks come after
        if isinstance(data, dict):
            for old, new in RENAMED_GENERATION.items():
                if old in data:
                    raise ValueError(f"{old} was renamed: use generation.{new} (a whole-run budget; the "
                                     f"per-request output cap is generation.profile.output_tokens)")
        return data

    @field_validator("seeds", mode="before")
    @classmethod
    def _glob(cls, v: object, info: ValidationInfo) -> str | None:
        if v is None:
            return None
        p = Path(str(v)).expanduser()
        if not p.is_absolute():
            p = base_of(info) / p
        return str(p)

    @field_validator("rules_file", mode="before")
    @classmethod
    def _rules(cls, v: object, info: ValidationInfo) -> Path | None:
        p = resolve_file(v, info, must_exist=False)  # hh writes it when it is not there yet
        if p is not None and p.exists() and not is_file(p):
            raise ValueError(f"{p}: not a regular file")
        return p

    def seed_files(self) -> list[Path]:
        """One path per seed design: a Verilog file, a filelist, or a folder holding one multi-file design."""
        if not self.seeds:
            return []
        pattern = Path(self.seeds)
        if is_file(pattern) and is_filelist(pattern.name):
            return [pattern]
        if pattern.is_dir():
            return sorted(p for p in pattern.iterdir()
                          if (p.is_file() and p.suffix.lower() in (".v", ".sv") or is_filelist(p.name))
                          or (p.is_dir() and any(p.glob("*.*v"))))
        return sorted(Path(pattern.anchor).glob(str(pattern.relative_to(pattern.anchor))))
