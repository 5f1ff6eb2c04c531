"""Every request and response on disk (``RUN_DIR/llm/NNNN.json``) and the response cache built from them.

The cache key is the sha256 of the model, the messages and the sampling parameters (temperature,
seed, max_tokens): the endpoint URL and the key are not part of it, so a recording replays against
any endpoint, or none. Records never hold the API key (every string is scrubbed of it).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..jsonio import read_json, write_json
from ..secrets import without_credentials
from .chat import ChatMessage, Record, Sampling

RECORD = re.compile(r"^(\d{4,})\.json$")


def request_key(model: str, messages: list[ChatMessage], params: Sampling) -> str:
    """Content address of one chat request."""
    blob = json.dumps({"model": model, "messages": messages, "params": params}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def scrub(obj: Any, secrets: list[str]) -> Any:
    """``obj`` with every occurrence of a secret replaced by ``***``."""
    secrets = [s for s in secrets if s and len(s) >= 4]
    if not secrets:
        return obj
    if isinstance(obj, str):
        for s in secrets:
            obj = obj.replace(s, "***")
        return obj
    if isinstance(obj, dict):
        return {k: scrub(v, secrets) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [scrub(v, secrets) for v in obj]
    return obj


def public_url(url: str | None) -> str | None:
    """The endpoint without user:password@ (some proxies put credentials there)."""
    return without_credentials(url) if url else url


def _load(folder: Path) -> list[Record]:
    out: list[Record] = []
    if folder.is_dir():
        for p in sorted(folder.iterdir()):
            if RECORD.match(p.name):
                try:
                    out.append(read_json(p))
                except (OSError, ValueError):
                    continue  # a torn record (killed mid-write) is simply not cached
    return out


def _cacheable(rec: Record) -> bool:
    return isinstance(rec.get("response"), str) and not rec.get("error") and bool(rec.get("key"))


class Recorder:
    """Writes records and answers cache look-ups.

    Normal mode: the cache holds this run's own earlier records (a resumed run asks nothing twice).
    Replay mode: look-ups go to the recording in ``replay_dir`` only; a miss is the caller's error.
    """

    def __init__(self, run_dir: Path, replay_dir: Path | None = None, secrets: list[str] | None = None) -> None:
        self.dir = Path(run_dir) / "llm"
        self.secrets = [s for s in (secrets or []) if s]
        own = _load(self.dir)
        self.earlier = own  # this run's records before now (a resumed run), for the budget
        self.next_index = max((int(r.get("index", 0)) for r in own), default=0) + 1
        self.replaying = replay_dir is not None
        self.replay_dir = Path(replay_dir) / "llm" if replay_dir is not None else None
        if replay_dir is not None:
            src = Path(replay_dir) / "llm"
            if not src.is_dir():
                raise InputError(f"--replay {replay_dir}: no recorded LLM responses (no {src})")
            recs = _load(src)
        else:
            recs = own
        self.cache: dict[str, Record] = {}
        for r in recs:
            if _cacheable(r):
                self.cache.setdefault(r["key"], r)

    def lookup(self, key: str) -> Record | None:
        return self.cache.get(key)

    def write(self, record: Record) -> Path:
        """Number and store one record; returns its path."""
        rec = scrub({"index": self.next_index, "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **record},
                    self.secrets)
        path = self.dir / f"{self.next_index:04d}.json"
        self.next_index += 1
        write_json(path, rec)
        if _cacheable(rec) and not self.replaying:
            self.cache.setdefault(rec["key"], rec)
        return path
