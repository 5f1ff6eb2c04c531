"""Typed journal records from the short dicts tests write: the required keys a test does not care about
(an evaluation's ``key`` and ``valid``, a Phase-1 record's ``evaluation``) are filled in."""

from __future__ import annotations

from typing import Any

from hyperheurist.record.entries import JournalRecord, parse_record


def typed(records: list[dict[str, Any]]) -> list[JournalRecord]:
    out: list[JournalRecord] = []
    for r in records:
        if r.get("type") == "eval":
            r = {"key": "", "valid": True, **r}
        elif r.get("type") == "phase1":
            key = r.get("key", "")
            r = {"key": key, "evaluation": {"key": key, "valid": r.get("verdict") == "valid"}, **r}
        out.append(parse_record(r))
    return out
