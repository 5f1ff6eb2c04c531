"""One logical request to the endpoint: the attempts it takes and what each teaches the profile.

- 429, 5xx, 408, timeouts, lost connections and stalled streams are retried, waiting what
  ``Retry-After`` asks (up to ``MAX_RETRY_AFTER_S``) or a deterministic exponential backoff
  (``HH_LLM_BACKOFF_S`` first, doubling up to 30 s); after ``retries`` the endpoint is lost.
- 401/403: the key is refused (KeyRefused, a configuration error naming the endpoint and OPENAI_API_KEY);
  404: the endpoint is unusable (LLMUnavailable).
- 400 refusing a parameter (``max_tokens``, ``temperature``, ``seed``, ``reasoning_effort``): the
  profile learns it and the request is resent at once.
- 400 "maximum context length": the output cap is lowered to what fits, else the prompt is
  shortened (``build(trim)``: examples, then long logs, then history go first) and resent; when
  nothing fits, the request fails with the server's words.
- a streamed request answered with one JSON body (a server that ignores ``stream``): read as is, and
  the profile stops streaming for the rest of the run; a reply labelled as an event stream that held
  no event is resent once unstreamed, and streaming stays off too.
- an empty reply cut off by the output cap (finish_reason ``length``): resent once with a larger
  cap (up to ``generation.max_output_tokens``), which the profile keeps.
Any other failure fails this request only (RequestFailed), quoting the server.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from .chat import Attempt, Build, ChatMessage, Sampling
from .errors import KeyRefused, LLMUnavailable, RequestFailed, key_refused
from .extract import THINK
from .profile import MARGIN_TOKENS, ProfileKeeper, context_error, estimate_tokens
from .transport import AttemptFailed, Reply, Transport

MAX_WAIT_S = 30.0
MAX_RETRY_AFTER_S = 120.0
MIN_OUTPUT_TOKENS = 256  # below this a reply cannot hold a design: shorten the prompt instead
MAX_TRIM = 3  # prompts.TRIM_STEPS
MAX_ADAPTATIONS = 8  # parameter renames/drops and context fits within one request (a loop guard)
TRANSIENT_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529}


def backoff_base() -> float:
    try:
        return max(0.0, float(os.environ.get("HH_LLM_BACKOFF_S", "1.0")))
    except ValueError:
        return 1.0


def _visible(text: str) -> str:
    """The reply without reasoning blocks (an unterminated one counts as reasoning too)."""
    out = THINK.sub("", text)
    at = out.lower().find("<think>")
    return (out[:at] if at >= 0 else out).strip()


class Exchange:
    """Sends one request through the profile, with retries and adaptations; thread-safe."""

    def __init__(self, transport: Transport, keeper: ProfileKeeper, retries: int, extra_body: dict[str, Any],
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.transport = transport
        self.keeper = keeper
        self.retries = retries
        self.extra_body = extra_body
        self.sleep = sleep

    def run(self, model: str, build: Build, params: Sampling,
            before_attempt: Callable[[], None] = lambda: None,
            after_attempt: Callable[[Attempt], None] = lambda _a: None) -> Reply:
        return self.keeper.first(lambda: self._run(model, build, params, before_attempt, after_attempt))

    def _run(self, model: str, build: Build, params: Sampling,
             before_attempt: Callable[[], None], after_attempt: Callable[[Attempt], None]) -> Reply:
        attempts: list[Attempt] = []
        trim, failures, adaptations, grown = 0, 0, 0, False
        cap_override: int | None = None
        base = backoff_base()
        while True:
            messages = build(trim)
            cap = cap_override if cap_override is not None else self.keeper.output_cap(messages)
            if cap < MIN_OUTPUT_TOKENS and self.keeper.profile.context_length:
                if trim < MAX_TRIM:  # known not to fit: shorten before sending
                    trim += 1
                    continue
                if cap <= 0:
                    p = self.keeper.profile
                    said = next((x["server"] for x in reversed(p.learned) if x["what"].startswith("context")), "")
                    raise RequestFailed(
                        f"the prompt (~{estimate_tokens(messages, p.chars_per_token)} tokens, shortened) does not fit "
                        f"the model's context of {p.context_length} tokens; server said: {said}", attempts)
            kwargs = self.keeper.kwargs(params, max(16, cap), self.extra_body)
            before_attempt()
            attempt: Attempt = {"attempt": len(attempts) + 1,
                                       "sent": {k: v for k, v in kwargs.items() if k != "extra_body"}}
            if trim:
                attempt["trim"] = trim
            t0 = time.monotonic()
            try:
                reply = self.transport.attempt(model, messages, kwargs, self.keeper.profile.stream)
            except AttemptFailed as f:
                attempt["status"] = f.status
                attempt["error"] = f.text()
                attempt["latency_s"] = round(time.monotonic() - t0, 4)
                if f.partial is not None:
                    attempt["partial"] = f.partial  # a stream cut short: what had arrived
                attempts.append(attempt)
                after_attempt(attempt)
                if f.status in (401, 403):
                    from .record import public_url

                    raise KeyRefused(key_refused(public_url(self.transport.base_url), self.transport.keyed, f.status,
                                                 f.message), attempts) from None
                if f.status == 404:
                    raise LLMUnavailable(f"endpoint refused the request ({f.text()})", attempts) from None
                if f.status in (400, 413, 422) and adaptations < MAX_ADAPTATIONS:
                    adapted = self._adapt(f, kwargs, messages, cap, trim)
                    if adapted is not None:
                        adaptations += 1
                        attempt["adapted"] = adapted[0]
                        trim, cap_override = adapted[1], adapted[2]
                        continue
                    if context_error(f.message) is not None:
                        raise RequestFailed(f"the prompt does not fit the model's context even shortened "
                                            f"({f.text()})", attempts) from None
                if f.kind == "http" and f.status not in TRANSIENT_STATUS and not (f.status or 0) >= 500:
                    raise RequestFailed(f.text(), attempts) from None
                if f.empty_stream and adaptations < MAX_ADAPTATIONS:  # resent once unstreamed, remembered
                    what = self.keeper.stop_streaming(f"a streamed request got no event ({f.message})")
                    if what:
                        adaptations += 1
                        attempt["adapted"] = what
                        continue
                if f.kind == "malformed":
                    raise RequestFailed(f.text(), attempts) from None
                failures += 1
                if failures > self.retries:
                    break
                wait = min(base * 2 ** (failures - 1), MAX_WAIT_S)
                if f.retry_after is not None:
                    wait = min(f.retry_after, MAX_RETRY_AFTER_S)
                    attempt["retry_after_s"] = f.retry_after
                attempt["wait_s"] = round(wait, 3)
                self.sleep(wait)
                continue
            attempt["status"] = 200
            attempt["latency_s"] = round(reply.latency_s, 4)
            attempt["tokens_in"] = reply.tokens_in
            attempt["tokens_out"] = reply.tokens_out
            attempt["finish_reason"] = reply.finish_reason
            attempts.append(attempt)
            after_attempt(attempt)
            if reply.unstreamed:  # read as a plain reply; ask later ones unstreamed too
                what = self.keeper.stop_streaming("a streamed request was answered with one JSON body "
                                                  "(the server ignores stream)")
                if what:
                    attempt["adapted"] = what
            if reply.finish_reason == "length" and not _visible(reply.text):
                new = None if grown else self.keeper.grow_output(cap, f"empty reply with finish_reason length at "
                                                                      f"{cap} output tokens")
                fits = self.keeper.profile.context_length is None or self.keeper.output_cap(messages) > cap
                if new is not None and fits:
                    grown = True
                    attempt["adapted"] = f"output cap {cap} -> {new}"
                    cap_override = None
                    continue
                reply.attempts = attempts
                raise RequestFailed(
                    f"empty reply: the model spent all {cap} output tokens before answering (finish_reason length; "
                    f"generation.max_output_tokens is {self.keeper.profile.max_output_tokens})", attempts)
            reply.attempts = attempts
            reply.trim = trim
            reply.messages = messages if trim else None
            return reply
        raise LLMUnavailable(f"endpoint failed {len(attempts)} time(s) in a row; last: "
                             f"{attempts[-1]['error']}", attempts)

    def _adapt(self, f: AttemptFailed, kwargs: dict[str, Any], messages: list[ChatMessage], cap: int, trim: int
               ) -> tuple[str, int, int | None] | None:
        """(what changed, next trim level, an output cap for the next attempt) after a 400, or None."""
        what = self.keeper.adapt(f.message, f.param, kwargs)
        if what:
            return what, trim, None
        ctx = context_error(f.message)
        if ctx is None:
            return None
        limit, prompt_tokens = ctx
        self.keeper.learn_context(limit, prompt_tokens, messages, f.message)
        limit = limit or self.keeper.profile.context_length
        if limit and prompt_tokens:
            room = limit - prompt_tokens - MARGIN_TOKENS
            if MIN_OUTPUT_TOKENS <= room < cap:
                return f"output cap {cap} -> {room} (context {limit}, prompt {prompt_tokens})", trim, room
        elif limit:
            room = self.keeper.output_cap(messages)
            if MIN_OUTPUT_TOKENS <= room < cap:
                return f"output cap {cap} -> {room} (context {limit})", trim, None
        if trim < MAX_TRIM:
            return f"prompt shortened (level {trim + 1})", trim + 1, None
        return None
