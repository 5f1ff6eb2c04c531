"""Reading summary.json leniently: the coercions and the base model of every summary part.

Read from disk (validation context ``READ``), a value of the wrong type becomes None or empty instead of a
ValidationError (a report must render for an interrupted, older or hand-edited run); built in code, a part
is validated as its types say.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Self

from pydantic import BaseModel, BeforeValidator, ConfigDict, JsonValue, ValidationInfo

from ..jsonio import as_dict, as_list, num, text
from ..recipe import KnobValue
from .base import READ

JsonObject = dict[str, JsonValue]  # a free-form part of the summary (the search's counters, a history point)


def clean_int(x: object) -> int | None:
    v = num(x)
    return int(v) if v is not None else None


def clean_opt_text(x: object) -> str | None:
    return x if isinstance(x, str) else None


def clean_counts(d: object) -> dict[str, int]:
    return {str(k): n for k, v in as_dict(d).items() if (n := clean_int(v)) is not None}


def clean_objects(x: object) -> list[dict[str, object]]:
    return [e for e in as_list(x) if isinstance(e, dict)]


def clean_knobs(x: object) -> dict[str, KnobValue]:
    return {str(k): v for k, v in as_dict(x).items() if v is None or isinstance(v, bool | int | str)}


def clean_numbers(x: object) -> dict[str, float | int]:
    return {str(k): v for k, v in as_dict(x).items() if num(v) is not None}


def clean_tools(x: object) -> dict[str, dict[str, str]]:
    return {str(k): {str(kk): vv for kk, vv in as_dict(v).items() if isinstance(vv, str)}
            for k, v in as_dict(x).items()}


def read_from_disk(info: ValidationInfo) -> bool:
    return bool((info.context or {}).get(READ))


def lenient(clean: Callable[[Any], object]) -> BeforeValidator:
    """Read from disk, a value is first cleaned by ``clean`` (a wrong type becomes None or empty)."""

    def before(value: object, info: ValidationInfo) -> object:
        return clean(value) if read_from_disk(info) else value

    return BeforeValidator(before)


Text = Annotated[str, lenient(text)]
OptText = Annotated[str | None, lenient(clean_opt_text)]
Num = Annotated[float | None, lenient(num)]
Int = Annotated[int | None, lenient(clean_int)]
Counts = Annotated[dict[str, int], lenient(clean_counts)]
Object = Annotated[JsonObject, lenient(as_dict)]


class SummaryPart(BaseModel):
    """A part of summary.json (unknown keys are dropped on reading, as the dict reader did)."""

    model_config = ConfigDict(extra="ignore")

    def to_json(self) -> dict[str, object]:
        """The part as the JSON object summary.json holds (``json.dumps`` writes it)."""
        return self.model_dump()

    @classmethod
    def read(cls, data: object) -> Self:
        """The part as read from disk: tolerant, never a ValidationError for a wrong type."""
        return cls.model_validate(as_dict(data), context={READ: True})
