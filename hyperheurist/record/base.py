"""The base of every run-record model: the JSON it was read from comes back out byte for byte.

A record read from disk keeps the order of its keys, leaves out the keys it did not have (an older
journal lacks ``proof`` or ``parent``) and keeps keys it does not model (``extra="allow"``); a record
built in code writes the keys it was given, in the order ``key_order`` names. So a journal line that is
parsed and written again is the same line, and a new run's lines are the lines the dict writer wrote.
"""

from __future__ import annotations

from typing import Any, ClassVar, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
)

CHAIN = ("run", "seq", "prev", "hash")  # the hash chain's keys, written last (journal.py adds them)
READ = "read"  # validation context key: the data was read from disk (keep its key order)


class JsonRecord(BaseModel):
    """A model of one JSON object that round-trips: key order, absent keys and unknown keys are kept."""

    model_config = ConfigDict(extra="allow")
    ORDER: ClassVar[tuple[str, ...]] = ()  # key order of a record built in code (empty: the fields' order)
    _order: tuple[str, ...] | None = PrivateAttr(default=None)

    @model_validator(mode="wrap")
    @classmethod
    def _keep_order(cls, data: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        model = handler(data)
        if isinstance(data, dict) and isinstance(model, JsonRecord) and (info.context or {}).get(READ):
            model._order = tuple(data)
        return model

    def key_order(self) -> tuple[str, ...]:
        """The order of the keys written for a record built in code."""
        return self.ORDER or tuple(type(self).model_fields)

    @model_serializer(mode="wrap")
    def _ordered(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        out: dict[str, object] = handler(self)
        fields, given = type(self).model_fields, self.model_fields_set
        out = {k: v for k, v in out.items() if k not in fields or k in given}
        order = self._order if self._order is not None else self.key_order()
        first = {k: out[k] for k in order if k in out}
        return first | {k: v for k, v in out.items() if k not in first}

    def to_json(self) -> dict[str, object]:
        """The record as the JSON object it is written as (enums are ``str``: ``json.dumps`` writes their value)."""
        return self.model_dump()

    @classmethod
    def read(cls, data: object) -> Self:
        """The record of JSON read from disk (its key order is kept; pydantic's ValidationError if it is none)."""
        return cls.model_validate(data, context={READ: True})
