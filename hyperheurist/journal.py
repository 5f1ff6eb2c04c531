"""The run journal: an append-only, hash-chained JSONL record that also drives ``--resume``.

Every line carries the run id (``run``), its position (``seq``), the hash of the line before it
(``prev``) and its own hash (``hash``, over the record without that field), and line 0 names the
``resolved.yaml`` the run started with. ``verify`` therefore refuses a journal with an edited,
foreign, duplicated, deleted or reordered line, or a run directory whose resolved.yaml was swapped,
naming the first bad record. (Without a secret key the chain cannot stop someone who recomputes
every hash; ``hh audit`` re-computes the best design's numbers for that.)

Resume replays the run from the start with the same seed. The verified records up to the first
tool fault are the *prefix*: the replay must emit the same records in the same order, and writes
nothing until it goes past them. Every result the journal holds (also after that point) is a memo,
so no tool runs twice, but the records after the prefix are written again by the replay, in the
order an uninterrupted run writes them. A replay that diverges from the prefix (a Phase-1 candidate
that a tool fault had hidden is valid now, so the chains start elsewhere) cuts the file there.

Records are the typed models of ``record.entries`` (a union on ``type``); the hash is over a record's
canonical JSON (sorted keys), and a record read back is written with its own key order, so a parsed
line and the line on disk are the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path

from pydantic import ValidationError

from .errors import InputError
from .jsonio import append_jsonl, repair_jsonl
from .record.base import CHAIN
from .record.entries import EndRecord, EvalRecord, JournalRecord, Phase1Record, StartRecord, StepRecord, parse_record
from .record.enums import FailedGate
from .record.summary import JournalHead
from .search.state import Evaluation

INFRA = FailedGate.INFRASTRUCTURE  # failed_gate of an evaluation a tool fault cut short


def record_hash(rec: Mapping[str, object]) -> str:
    """The hash of one record: over its canonical JSON (sorted keys), so key order on disk does not enter it."""
    body = {k: v for k, v in rec.items() if k != "hash"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def genesis(run_id: str) -> str:
    return hashlib.sha256(f"hh-journal:{run_id}".encode()).hexdigest()


def file_digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def is_fault(rec: JournalRecord) -> bool:
    return (isinstance(rec, EvalRecord) and rec.failed_gate == INFRA) or \
        (isinstance(rec, Phase1Record) and rec.gate == INFRA)


def _identity(rec: JournalRecord) -> tuple[object, ...]:
    """What a replayed record must share with the recorded one at the same position."""
    match rec:
        case StepRecord():
            return (rec.type, rec.chain, rec.iteration, rec.move, rec.proposal, rec.verdict, rec.accepted)
        case EndRecord():
            return (rec.type, rec.status, rec.best_cost)
        case Phase1Record():
            return (rec.type, rec.key, None)
        case EvalRecord():
            return (rec.type, rec.key, rec.parent)
    return (rec.type, None, None)


def verify(path: Path, run_id: str, resolved: Path | None = None) -> tuple[list[JournalRecord], list[int]]:
    """The journal's records and each line's byte offset, or InputError naming the first bad record.

    A torn final line (a kill mid-write) is not a record and is ignored here (resume cuts it)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    records: list[JournalRecord] = []
    offsets: list[int] = []
    prev = genesis(run_id)
    pos = 0
    lines = data.split(b"\n")
    for i, raw in enumerate(lines):
        start, pos = pos, pos + len(raw) + 1
        if i == len(lines) - 1:  # after the last newline: empty, or a torn line
            break
        where = f"{path}: record {i + 1}"
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise InputError(f"{where}: not a JSON record (damaged); cannot resume or audit from it") from None
        if not isinstance(obj, dict) or not all(k in obj for k in CHAIN):
            raise InputError(f"{where}: no run id / sequence / hash (not written by this hh run); "
                             "cannot resume or audit from it")
        if obj["run"] != run_id:
            raise InputError(f"{where}: belongs to run {str(obj['run'])[:40]}, not {run_id} (foreign record); "
                             "cannot resume or audit from it")
        if obj["seq"] != i:
            earlier = isinstance(obj["seq"], int) and obj["seq"] < i
            what = "duplicated or reordered" if earlier else "records before it are missing"
            raise InputError(f"{where}: sequence number {obj['seq']}, expected {i} ({what}); "
                             "cannot resume or audit from it")
        if obj["hash"] != record_hash(obj):
            raise InputError(f"{where}: content does not match its hash (edited); cannot resume or audit from it")
        if obj["prev"] != prev:
            raise InputError(f"{where}: does not chain to record {i} (a record was deleted, reordered or edited); "
                             "cannot resume or audit from it")
        try:
            rec = parse_record(obj)
        except ValidationError:
            rec = None
        if rec is None or (i == 0) != isinstance(rec, StartRecord):
            raise InputError(f"{where}: not a journal entry; cannot resume or audit from it")
        prev = obj["hash"]
        records.append(rec)
        offsets.append(start)
    if not records:
        raise InputError(f"{path}: empty journal (no start record); cannot resume or audit from it")
    if resolved is not None:
        first = records[0]
        want = first.resolved_sha256 if isinstance(first, StartRecord) else None
        try:
            have = file_digest(resolved)
        except OSError as exc:
            raise InputError(f"{resolved}: cannot read: {exc.strerror}") from None
        if have != want:
            raise InputError(f"{resolved}: not the configuration this run started with (journal record 1 names "
                             f"sha256 {str(want)[:12]}, the file has {have[:12]}); cannot resume or audit from it")
    return records, offsets


class Journal:
    def __init__(self, path: Path, run_id: str, resume: bool = False, header: StartRecord | None = None,
                 resolved: Path | None = None) -> None:
        self.path = Path(path)
        self.run_id = run_id
        self.phase1: dict[str, Phase1Record] = {}
        self.evals: dict[tuple[str, str | None], Evaluation] = {}
        self.prefix: list[JournalRecord] = []
        self.offsets: list[int] = []
        self.cursor = 0
        self.torn_bytes = 0
        self.cut_at: int | None = None  # first record the replay rewrote (None: the record was followed to its end)
        if resume:
            self.torn_bytes = repair_jsonl(self.path)
        if resume and self.path.exists() and self.path.stat().st_size > 0:
            records, offsets = verify(self.path, run_id, resolved)
            for rec in records:
                if is_fault(rec):  # a tool fault says nothing about the design: evaluated again
                    continue
                if isinstance(rec, Phase1Record):
                    self.phase1.setdefault(rec.key, rec)
                elif isinstance(rec, EvalRecord):
                    self.evals.setdefault((rec.key, rec.parent), rec.evaluation())
            first_fault = next((i for i, r in enumerate(records) if is_fault(r)), len(records))
            self.prefix, self.offsets = records, offsets
            self._cut(first_fault)
            self.cursor = 1
        else:  # a new run (or one killed before its journal's first line was written)
            self._append(header if header is not None else StartRecord())
            self.cursor = 1

    # ---- writing ------------------------------------------------------------------------------
    def _cut(self, index: int) -> None:
        """Drop records ``index..`` from the file (a prefix of a valid chain is a valid chain)."""
        if index >= len(self.prefix):
            return
        with open(self.path, "r+b") as fh:
            fh.truncate(self.offsets[index])
            fh.flush()
            os.fsync(fh.fileno())
        self.prefix, self.offsets = self.prefix[:index], self.offsets[:index]
        self.cut_at = index if self.cut_at is None else min(self.cut_at, index)

    def _append(self, rec: JournalRecord) -> None:
        rec.run, rec.seq = self.run_id, len(self.prefix)
        rec.prev = self.prefix[-1].hash if self.prefix else genesis(self.run_id)
        line = rec.to_json()
        rec.hash = line["hash"] = record_hash(line)
        offset = self.path.stat().st_size if self.path.exists() else 0
        append_jsonl(self.path, line)
        self.prefix.append(rec)
        self.offsets.append(offset)
        self.cursor = len(self.prefix)

    def _emit(self, rec: JournalRecord) -> None:
        """Append ``rec``, unless the replay is still inside the recorded prefix and ``rec`` is its next record."""
        if self.cursor < len(self.prefix):
            if _identity(self.prefix[self.cursor]) == _identity(rec):
                self.cursor += 1
                return
            self._cut(self.cursor)  # the replay went elsewhere: what was recorded from here on is not this run
        self._append(rec)

    def record_phase1(self, rec: Phase1Record) -> None:
        self.phase1.setdefault(rec.key, rec)
        self._emit(rec)

    def record_eval(self, state_digest: str, recipe: Mapping[str, object], ev: Evaluation,
                    parent: str | None = None) -> None:
        self.evals.setdefault((ev.key, parent), ev)
        fields = {"type": "eval", "digest": state_digest, "recipe": recipe, "parent": parent,
                  **EvalRecord.fields_of(ev)}
        self._emit(EvalRecord.model_validate(fields))

    def record_step(self, rec: StepRecord) -> None:
        self._emit(rec)

    def record(self, rec: EndRecord) -> None:
        self._emit(rec)

    def head(self) -> JournalHead:
        """What summary.json says about the journal it was written with (audit checks the tail is intact)."""
        return JournalHead(records=len(self.prefix), head=self.prefix[-1].hash if self.prefix else None)

    def lookup(self, key: str, parent: str | None) -> Evaluation | None:
        return self.evals.get((key, parent))


def records_of(path: Path, run_id: str, resolved: Path | None = None,
               keep: Callable[[JournalRecord], bool] | None = None) -> list[JournalRecord]:
    """Verified records (see ``verify``), optionally filtered."""
    records, _ = verify(path, run_id, resolved)
    return [r for r in records if keep is None or keep(r)]
