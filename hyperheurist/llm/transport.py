"""One chat completion over the ``openai`` package, with our own timeouts, retries and backoff.

The openai client's retries are off (``max_retries=0``) so every attempt is ours: counted,
recorded and spaced by a deterministic exponential backoff (``HH_LLM_BACKOFF_S`` sets the first
wait, default 1 s, doubling up to 30 s). 429, 5xx, connection errors and timeouts are retried;
401/403/404 mean the endpoint is unusable; other 4xx and malformed replies fail that request only,
except a 400 that names a parameter the model does not take (``max_tokens`` for reasoning models,
``seed``, ``temperature``): the request is resent at once without it, and later ones too.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from .errors import LLMUnavailable, RequestFailed

MAX_WAIT_S = 30.0


def backoff_base() -> float:
    try:
        return max(0.0, float(os.environ.get("HH_LLM_BACKOFF_S", "1.0")))
    except ValueError:
        return 1.0


@dataclass
class Reply:
    text: str
    finish_reason: str | None
    tokens_in: int
    tokens_out: int
    estimated_tokens: bool
    latency_s: float
    attempts: list[dict] = field(default_factory=list)


class Transport:
    """Sends chat requests to one OpenAI-compatible endpoint."""

    def __init__(self, base_url: str | None, api_key: str | None, timeout_s: float, retries: int,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        from openai import OpenAI

        # a local server (vLLM, Ollama, llama.cpp) needs no key, but the client insists on one
        self.client = OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout_s, max_retries=0)
        self.timeout_s = timeout_s
        self.retries = retries
        self.sleep = sleep
        self.rename: dict[str, str] = {}  # parameter names this endpoint wants spelled otherwise
        self.drop: set[str] = set()  # parameters this endpoint rejects

    def chat(self, model: str, messages: list[dict], params: dict,
             before_attempt: Callable[[], None] = lambda: None,
             after_attempt: Callable[[dict], None] = lambda _a: None) -> Reply:
        """The reply, after up to ``retries`` retries; LLMUnavailable when the endpoint is lost,
        RequestFailed when only this request is bad. ``before_attempt`` may raise (budget)."""
        import openai

        attempts: list[dict] = []
        base = backoff_base()
        failures = 0  # transient ones, which are retried
        while True:
            before_attempt()
            t0 = time.monotonic()
            attempt: dict[str, Any] = {"attempt": len(attempts) + 1}
            try:
                resp = self.client.chat.completions.create(model=model, messages=messages,  # type: ignore[call-overload]
                                                           **self._shape(params))
                reply = self._reply(resp, messages, time.monotonic() - t0)
            except (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError) as exc:
                attempt.update(status=exc.status_code, error=_short(exc), latency_s=_since(t0))
                attempts.append(attempt)
                after_attempt(attempt)
                raise _with(LLMUnavailable(f"endpoint refused the request (HTTP {exc.status_code}): {_short(exc)}"),
                            attempts) from None
            except (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError) as exc:
                status = getattr(exc, "status_code", None)
                kind = "timeout" if isinstance(exc, openai.APITimeoutError) else (f"HTTP {status}" if status else "connection error")
                attempt.update(status=status, error=f"{kind}: {_short(exc)}", latency_s=_since(t0))
            except openai.APIStatusError as exc:
                attempt.update(status=exc.status_code, error=_short(exc), latency_s=_since(t0))
                attempts.append(attempt)
                after_attempt(attempt)
                adapted = self._adapt(_short(exc)) if exc.status_code == 400 else None
                if adapted:  # e.g. a model that wants max_completion_tokens: resend at once, remember it
                    attempt["adapted"] = adapted
                    continue
                raise _with(RequestFailed(f"HTTP {exc.status_code}: {_short(exc)}"), attempts) from None
            except (openai.APIError, ValueError, TypeError, AttributeError, IndexError) as exc:
                attempt.update(error=f"malformed response: {_short(exc)}", latency_s=_since(t0))
                attempts.append(attempt)
                after_attempt(attempt)
                raise _with(RequestFailed(f"malformed response: {_short(exc)}"), attempts) from None
            else:
                attempt.update(status=200, latency_s=round(reply.latency_s, 4), tokens_in=reply.tokens_in,
                               tokens_out=reply.tokens_out)
                attempts.append(attempt)
                after_attempt(attempt)
                reply.attempts = attempts
                return reply
            attempts.append(attempt)
            after_attempt(attempt)
            failures += 1
            if failures > self.retries:
                break
            wait = min(base * 2 ** (failures - 1), MAX_WAIT_S)
            attempt["wait_s"] = wait
            self.sleep(wait)
        last = attempts[-1]["error"] if attempts else "no attempt"
        raise _with(LLMUnavailable(f"endpoint failed {len(attempts)} time(s) in a row; last: {last}"), attempts)

    def _shape(self, params: dict) -> dict:
        """The parameters as this endpoint wants them (renamed or dropped after a 400 said so)."""
        return {self.rename.get(k, k): v for k, v in params.items() if k not in self.drop}

    def _adapt(self, message: str) -> str | None:
        """Learn from a 400 that names a parameter this model does not take; what changed, or None."""
        low = message.lower()
        if "max_completion_tokens" in low and "max_tokens" in low and "max_tokens" not in self.rename:
            self.rename["max_tokens"] = "max_completion_tokens"
            return "max_tokens -> max_completion_tokens"
        if any(w in low for w in ("unsupported", "not supported", "does not support", "unrecognized", "unknown")):
            for name in ("seed", "temperature"):
                if name in low and name not in self.drop:
                    self.drop.add(name)
                    return f"dropped {name}"
        return None

    @staticmethod
    def _reply(resp: Any, messages: list[dict], latency: float) -> Reply:
        if isinstance(resp, (str, bytes)) or not getattr(resp, "choices", None):
            raise ValueError("no choices in the reply")
        choice = resp.choices[0]
        text = _text(choice.message.content)
        usage = getattr(resp, "usage", None)
        if usage is not None and getattr(usage, "prompt_tokens", None) is not None:
            return Reply(text, choice.finish_reason, int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0),
                         False, latency)
        # servers that report no usage: about four characters per token
        chars_in = sum(len(str(m.get("content", ""))) for m in messages)
        return Reply(text, choice.finish_reason, chars_in // 4 + 1, len(text) // 4 + 1, True, latency)


def _text(content: Any) -> str:
    """Message content as text: some servers send a list of parts instead of a string."""
    if content is None:
        return ""
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(getattr(p, "text", p)) for p in content)
    return str(content)


def _with(exc: Exception, attempts: list[dict]) -> Exception:
    """``exc`` carrying the attempts made, for the record."""
    exc.attempts = attempts  # type: ignore[attr-defined]
    return exc


def _since(t0: float) -> float:
    return round(time.monotonic() - t0, 4)


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:300] if text else type(exc).__name__
