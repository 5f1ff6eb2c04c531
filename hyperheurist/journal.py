"""The run journal: an append-only JSONL record that also drives ``--resume``.

On resume the journal is read back into memos (Phase-1 verdicts by candidate digest, evaluations by
state key, the number of steps already written). The flow then replays from the start with the same
seed: memoised results are reused instead of re-evaluated, and records already present are not
written twice, so the file stays one clean trajectory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .errors import InputError
from .jsonio import append_jsonl, dumps, read_jsonl, repair_jsonl, write_text_atomic
from .search.state import Evaluation

INFRA = "infrastructure"  # failed_gate of an evaluation a tool fault cut short


class Journal:
    def __init__(self, path: Path, resume: bool = False) -> None:
        self.path = Path(path)
        self.phase1: dict[str, dict] = {}
        self.evals: dict[str, Evaluation] = {}
        self.torn_bytes = 0
        self._steps_on_disk = 0
        self._steps_seen = 0
        self.dropped = 0
        if resume:
            self.torn_bytes = repair_jsonl(self.path)
            records = self._forget_faults(self._read_checked())
            for rec in records:
                kind = rec.get("type")
                if kind == "phase1":
                    self.phase1[rec["key"]] = rec
                elif kind == "eval":
                    self.evals[rec["key"]] = Evaluation.from_dict(rec)
                elif kind == "step":
                    self._steps_on_disk += 1

    def _read_checked(self) -> list[dict]:
        """Every record, or InputError naming the first line that is not one (damaged by hand or by disk)."""
        try:
            records = list(read_jsonl(self.path))
        except UnicodeDecodeError as exc:
            raise InputError(f"{self.path}: not UTF-8 text (byte {exc.start}); cannot resume from it") from None
        except ValueError as exc:
            raise InputError(f"{self.path}: corrupt record ({exc}); cannot resume from it") from None
        except OSError as exc:
            raise InputError(f"{self.path}: cannot read: {exc.strerror}") from None
        for i, rec in enumerate(records, 1):
            ok = isinstance(rec, dict)
            if ok and rec.get("type") in ("phase1", "eval"):
                ok = isinstance(rec.get("key"), str) and (rec["type"] != "eval" or "valid" in rec)
                if ok and rec["type"] == "eval":
                    try:
                        Evaluation.from_dict(rec)
                    except (TypeError, ValueError, KeyError):
                        ok = False
            if not ok:
                raise InputError(f"{self.path}: record {i} is not a journal entry; cannot resume from it")
        return records

    def _forget_faults(self, records: list[dict]) -> list[dict]:
        """Infrastructure faults (a tool crashed or was missing) say nothing about the design: on resume
        they are evaluated again. Their records go, and so does every step from the first one that
        depended on such an evaluation (the replay decides those steps afresh); the file is rewritten
        atomically so it stays one clean trajectory."""
        faulty = {r["key"] for r in records if r.get("type") == "eval" and r.get("failed_gate") == INFRA}
        faulty |= {r["key"] for r in records if r.get("type") == "phase1" and r.get("gate") == INFRA}
        if not faulty:
            return records
        kept: list[dict] = []
        cut = False
        for rec in records:
            kind = rec.get("type")
            if kind in ("eval", "phase1") and rec.get("key") in faulty:
                continue
            if kind == "step" and (cut or rec.get("proposal") in faulty):
                cut = True
                continue
            if kind == "end":
                continue
            kept.append(rec)
        self.dropped = len(records) - len(kept)
        write_text_atomic(self.path, "".join(dumps(r, indent=None) + "\n" for r in kept))
        return kept

    @property
    def resumed_steps(self) -> int:
        return self._steps_on_disk

    def record_phase1(self, rec: dict[str, Any]) -> None:
        if rec["key"] not in self.phase1:
            self.phase1[rec["key"]] = rec
            append_jsonl(self.path, {"type": "phase1", **rec})

    def record_eval(self, state_digest: str, recipe: dict, ev: Evaluation) -> None:
        if ev.key not in self.evals:
            self.evals[ev.key] = ev
            append_jsonl(self.path, {"type": "eval", "digest": state_digest, "recipe": recipe, **ev.to_dict()})

    def record_step(self, rec: dict[str, Any]) -> None:
        self._steps_seen += 1
        if self._steps_seen > self._steps_on_disk:
            append_jsonl(self.path, {"type": "step", **rec})

    def record(self, rec: dict[str, Any]) -> None:
        append_jsonl(self.path, rec)
