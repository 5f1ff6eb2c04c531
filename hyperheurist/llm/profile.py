"""What one endpoint's model accepts, learned once per run and kept in ``RUN_DIR/llm_profile.json``.

Parameter names (``max_tokens`` or ``max_completion_tokens``), whether ``temperature``/``seed``/
``reasoning_effort`` are taken, the per-request output cap and the context length. design.yaml's
``generation.profile`` gives the starting values; a server's 400 naming a parameter teaches the rest.

Learning is safe under concurrency: until one request has been answered (the *probe*), requests go
one at a time (``first``), so every thread sees what the probe learned and an unsupported parameter
costs at most one rejected request per run. A resumed run starts from its recorded profile.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from ..config import Generation
from ..jsonio import read_json, write_json
from .chat import ChatMessage, Sampling

T = TypeVar("T")
PROFILE_FILE = "llm_profile.json"
DEFAULT_OUTPUT_TOKENS = 4096
CHARS_PER_TOKEN = 3.0  # a cautious guess (code and markdown run 3-4) until a server tells us
MARGIN_TOKENS = 64  # chat template overhead the estimate does not see

# context-length errors: vLLM "This model's maximum context length is 2048 tokens. However, you requested
# 4396 tokens (300 in the messages, 4096 in the completion)", OpenAI (code context_length_exceeded)
# "...your messages resulted in 130000 tokens", llama.cpp exceed_context_size_error with n_ctx/n_prompt_tokens
CONTEXT = re.compile(r"maximum context length is (\d+)|\bn_ctx\W+(\d+)"
                     r"|context (?:size|length|window) (?:is|of) (\d+)", re.I)
CONTEXT_WORDS = re.compile(r"context_length_exceeded|exceed_context_size|maximum context length|context (?:size|window)"
                           r"|(?:prompt|input) is too long|too many tokens", re.I)
PROMPT_TOKENS = re.compile(r"(\d+) (?:tokens )?in the messages|messages resulted in (\d+) tokens"
                           r"|request has (\d+) input tokens|n_prompt_tokens\W+(\d+)"
                           r"|prompt (?:has|contains) (\d+) tokens", re.I)
REFUSED = re.compile(r"unsupported|not supported|does not support|unrecognized|unknown|not allowed|extra inputs"
                     r"|not permitted|invalid", re.I)


def _first_int(m: re.Match[str] | None) -> int | None:
    return int(next(g for g in m.groups() if g)) if m else None


def context_error(message: str) -> tuple[int | None, int | None] | None:
    """(context length, prompt tokens) as far as the server said, when ``message`` is a context-length error."""
    if not CONTEXT_WORDS.search(message):
        return None
    return _first_int(CONTEXT.search(message)), _first_int(PROMPT_TOKENS.search(message))


def estimate_tokens(messages: list[ChatMessage], chars_per_token: float = CHARS_PER_TOKEN) -> int:
    chars = sum(len(m["content"]) for m in messages)
    return int(chars / chars_per_token) + 4 * len(messages)


class Profile(BaseModel):
    """The model profile: what requests to this endpoint and model look like (``llm_profile.json``)."""

    endpoint: str | None
    model: str
    token_param: str = "max_tokens"
    temperature: str = "send"  # send | omit (reasoning models take only their default)
    seed: str = "send"
    reasoning_effort: str | None = None
    output_tokens: int = DEFAULT_OUTPUT_TOKENS
    max_output_tokens: int = 16384
    context_length: int | None = None
    chars_per_token: float = CHARS_PER_TOKEN
    stream: bool = False
    stream_usage: bool = True  # ask a streamed reply for its token counts (stream_options.include_usage)
    probed: bool = False  # one request has been answered: what this profile says was checked
    learned: list[dict[str, str]] = Field(default_factory=list)  # {what changed, the server's words for it}

    @classmethod
    def start(cls, gen: Generation, endpoint: str | None, model: str, stream: bool) -> Profile:
        o = gen.profile
        return cls(endpoint=endpoint, model=model, token_param=o.token_param or "max_tokens",
                   temperature=o.temperature or "send", seed=o.seed or "send", reasoning_effort=o.reasoning_effort,
                   output_tokens=min(o.output_tokens or DEFAULT_OUTPUT_TOKENS, gen.max_output_tokens),
                   max_output_tokens=gen.max_output_tokens, context_length=o.context_length, stream=stream)

    def to_json(self) -> dict[str, object]:
        return self.model_dump()

    @classmethod
    def read(cls, d: Mapping[str, object], fallback: Profile) -> Profile:
        """The recorded profile over ``fallback`` (unknown keys left out); pydantic's ValidationError, a
        ValueError, when a recorded value has the wrong type."""
        known = {k: v for k, v in d.items() if k in cls.model_fields}
        return cls.model_validate({**fallback.model_dump(), **known})


class ProfileKeeper:
    """The run's profile, shared by every request thread (one lock for changes, one for the probe)."""

    def __init__(self, profile: Profile, path: Path | None) -> None:
        self.profile = profile
        self.path = path
        self.lock = threading.Lock()
        self.probe_lock = threading.Lock()
        self.secrets: list[str] = []  # scrubbed from the file (a server's message may echo the key)

    @classmethod
    def open(cls, start: Profile, folder: Path | None, path: Path | None, replay: bool = False) -> ProfileKeeper:
        """Starts from ``folder/llm_profile.json`` when it is there: a resumed run's own (same endpoint
        and model, else it is learned again) or, ``replay``, the replayed run's; saved to ``path``."""
        recorded = folder / PROFILE_FILE if folder is not None else None
        keeper = cls(start, path)
        if recorded is not None and recorded.is_file():
            try:
                rec = read_json(recorded)
                if rec.get("model") == start.model and (replay or rec.get("endpoint") == start.endpoint):
                    keeper.profile = Profile.read(rec, start)
                    if recorded != path:
                        keeper.save()  # a replay keeps the profile it replays
            except (OSError, ValueError, TypeError):
                pass  # a torn profile is learned again
        return keeper

    def first(self, send: Callable[[], T]) -> T:
        """Run ``send``; until one request has been answered, one at a time (the probe)."""
        if not self.profile.probed:
            with self.probe_lock:
                if not self.profile.probed:
                    try:
                        return send()
                    finally:  # answered or refused: what it taught holds for everyone now
                        with self.lock:
                            self.profile.probed = True
                        self.save()
        return send()

    # ---- requests as the profile wants them -----------------------------------------------------
    def output_cap(self, messages: list[ChatMessage]) -> int:
        """The per-request output cap: the profile's, less when the context would overflow (may be <= 0)."""
        p = self.profile
        if p.context_length is None:
            return p.output_tokens
        room = p.context_length - estimate_tokens(messages, p.chars_per_token) - MARGIN_TOKENS
        return min(p.output_tokens, room)

    def kwargs(self, params: Sampling, cap: int, extra_body: dict[str, Any]) -> dict[str, Any]:
        """Keyword arguments of one chat request (besides model and messages)."""
        p = self.profile
        out: dict[str, Any] = {p.token_param: int(cap)}
        if p.temperature == "send":
            out["temperature"] = params["temperature"]
        if p.seed == "send":
            out["seed"] = params["seed"]
        if p.reasoning_effort:
            out["reasoning_effort"] = p.reasoning_effort
        if p.stream and p.stream_usage:
            out["stream_options"] = {"include_usage": True}
        if extra_body:
            out["extra_body"] = dict(extra_body)
        return out

    # ---- learning -------------------------------------------------------------------------------
    def _learn(self, what: str, message: str, **changes: Any) -> str:
        p = self.profile
        for k, v in changes.items():
            setattr(p, k, v)
        p.learned.append({"what": what, "server": message[:500]})
        return what

    def adapt(self, message: str, param: str | None, sent: dict[str, Any]) -> str | None:
        """Learn from a 400 that refuses a parameter we sent; what changed, or None (not about a parameter)."""
        low = message.lower()
        names = ("max_tokens", "max_completion_tokens", "temperature", "seed", "reasoning_effort", "stream_options")
        named = {n for n in names if param == n or f"'{n}'" in low or f'"{n}"' in low or f" {n} " in f" {low} "
                 or f"`{n}`" in low}
        with self.lock:
            if "max_tokens" in sent and ("max_completion_tokens" in low
                                         or "max_tokens" in named and REFUSED.search(low)):
                changed = self._learn("max_tokens -> max_completion_tokens", message,
                                      token_param="max_completion_tokens")
            elif "max_completion_tokens" in sent and "max_completion_tokens" in named and REFUSED.search(low):
                changed = self._learn("max_completion_tokens -> max_tokens", message, token_param="max_tokens")
            elif "temperature" in sent and "temperature" in named and REFUSED.search(low):
                changed = self._learn("temperature omitted", message, temperature="omit")
            elif "seed" in sent and "seed" in named and REFUSED.search(low):
                changed = self._learn("seed omitted", message, seed="omit")
            elif "reasoning_effort" in sent and "reasoning_effort" in named and REFUSED.search(low):
                changed = self._learn("reasoning_effort omitted", message, reasoning_effort=None)
            elif "stream_options" in sent and "stream_options" in named:
                changed = self._learn("stream_options omitted", message, stream_usage=False)
            else:
                return None
        self.save()
        return changed

    def learn_context(self, limit: int | None, prompt_tokens: int | None, messages: list[ChatMessage],
                      message: str) -> None:
        """A context-length error: remember the limit and how many characters the server counts per token."""
        with self.lock:
            p = self.profile
            if prompt_tokens:
                chars = sum(len(m["content"]) for m in messages)
                p.chars_per_token = max(1.0, min(p.chars_per_token, chars / max(1, prompt_tokens - 4 * len(messages))))
            if limit and limit != p.context_length:
                self._learn(f"context length {limit}", message, context_length=limit)
        self.save()

    def grow_output(self, cap: int, message: str) -> int | None:
        """A larger per-request cap after an empty reply cut off by the cap (remembered), or None at the ceiling."""
        with self.lock:
            p = self.profile
            new = min(p.max_output_tokens, max(cap, p.output_tokens) * 4)
            if new <= cap:
                return None
            if new > p.output_tokens:
                self._learn(f"output cap {p.output_tokens} -> {new}", message, output_tokens=new)
        self.save()
        return new

    def stop_streaming(self, what: str) -> str | None:
        """The server answered a streamed request with one JSON body: send later ones unstreamed (remembered)."""
        with self.lock:
            if not self.profile.stream:
                return None
            changed = self._learn("stream off", what, stream=False)
        self.save()
        return changed

    def save(self) -> None:
        if self.path is None:
            return
        from .record import scrub

        with self.lock:
            data = scrub(self.to_json(), self.secrets)
        try:
            write_json(self.path, data)
        except OSError:
            pass  # the profile is a convenience: a full disk surfaces through the records

    def to_json(self) -> dict[str, object]:
        return self.profile.to_json()
