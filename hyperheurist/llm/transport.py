"""One HTTP attempt at a chat completion over the ``openai`` package, streamed or not.

The openai client's retries are off (``max_retries=0``): every attempt is ours (``exchange`` decides
what to retry). A failure is an ``AttemptFailed`` carrying the server's own message, its status,
its ``Retry-After`` and, for a stream cut short, the text received so far.

Timeouts are per socket read: a reply that is not streamed must come within ``request_timeout_s``;
a streamed one may take as long as it likes as long as no silence (before the first chunk or
between two) exceeds ``idle_timeout_s``, which is what a slow local server on a CPU needs.

A server that ignores ``stream`` (answers a streamed request with one ``application/json`` body) is read
as a non-streamed reply (``Reply.unstreamed``; the exchange then turns streaming off in the profile).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from ..secrets import without_credentials
from .chat import Attempt, ChatMessage

if TYPE_CHECKING:
    from openai import APIStatusError
    from openai.types.chat import ChatCompletionMessageParam


@dataclass
class Reply:
    text: str
    finish_reason: str | None
    tokens_in: int
    tokens_out: int
    estimated_tokens: bool
    latency_s: float
    attempts: list[Attempt] = field(default_factory=list)
    trim: int = 0  # how far the prompt had to be shortened to fit the model's context
    messages: list[ChatMessage] | None = None  # what was sent, when shortened
    unstreamed: bool = False  # asked to stream, the server sent one plain JSON body instead


class AttemptFailed(Exception):
    """One attempt failed. ``status`` is the HTTP status (None: timeout, connection, malformed, stalled)."""

    def __init__(self, kind: str, message: str, status: int | None = None, retry_after: float | None = None,
                 param: str | None = None, partial: str | None = None, empty_stream: bool = False) -> None:
        super().__init__(message)
        self.kind = kind  # http | timeout | connection | malformed | stalled
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.param = param
        self.partial = partial
        self.empty_stream = empty_stream  # a 200 labelled as an event stream that held no event

    def text(self) -> str:
        """One line: what failed and, quoted, what the server said."""
        head = {"http": f"HTTP {self.status}", "timeout": "timeout", "connection": "connection error",
                "malformed": "malformed response", "stalled": "stream stalled"}.get(self.kind, self.kind)
        return f"{head}: {self.message}"


class Transport:
    """Sends chat requests to one OpenAI-compatible endpoint."""

    def __init__(self, base_url: str | None, api_key: str | None, request_timeout_s: float,
                 idle_timeout_s: float | None = None) -> None:
        from openai import OpenAI

        # a local server (vLLM, Ollama, llama.cpp) needs no key, but the client insists on one
        self.client = OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=request_timeout_s,
                             max_retries=0)
        self.request_timeout_s = request_timeout_s
        self.idle_timeout_s = idle_timeout_s or request_timeout_s
        self.base_url = base_url
        self.keyed = bool(api_key)  # a key was given (its value stays in the openai client only)

    def attempt(self, model: str, messages: list[ChatMessage], kwargs: dict[str, Any], stream: bool) -> Reply:
        """One request; AttemptFailed when it did not give a reply."""
        import openai

        t0 = time.monotonic()
        try:
            if stream:
                return self._streamed(model, messages, kwargs, t0)
            resp = self.client.chat.completions.create(model=model, messages=_sdk(messages),
                                                       timeout=self.request_timeout_s, **kwargs)
            return _reply(resp, messages, time.monotonic() - t0)
        except openai.APIStatusError as exc:
            raise AttemptFailed("http", server_message(exc), exc.status_code, _retry_after(exc),
                                _param(exc)) from None
        except openai.APITimeoutError:
            raise AttemptFailed("timeout", f"no reply within {self.request_timeout_s:g} s"
                                if not stream else f"no data for {self.idle_timeout_s:g} s") from None
        except openai.APIConnectionError as exc:
            raise AttemptFailed("connection", _short(exc.__cause__ or exc)) from None
        except (openai.APIError, ValueError, TypeError, AttributeError, IndexError, KeyError) as exc:
            raise AttemptFailed("malformed", _short(exc)) from None

    def _streamed(self, model: str, messages: list[ChatMessage], kwargs: dict[str, Any], t0: float) -> Reply:
        import openai

        resp = self.client.chat.completions.create(model=model, messages=_sdk(messages), stream=True,
                                                   timeout=self.idle_timeout_s, **kwargs)
        ctype = str(resp.response.headers.get("content-type", "")).lower()
        if "event-stream" not in ctype:  # the server ignored ``stream``: one JSON body, read as such
            return self._plain(resp, messages, ctype, t0)
        parts: list[str] = []
        finish: str | None = None
        usage: Any = None
        chunks = 0
        try:
            for chunk in resp:  # a server's chunk may lack fields the SDK declares (built without validation)
                chunks += 1
                usage = getattr(chunk, "usage", None) or usage
                for choice in getattr(chunk, "choices", None) or []:
                    delta = getattr(choice, "delta", None)
                    if delta is not None and getattr(delta, "content", None):
                        parts.append(_text(delta.content))
                    finish = getattr(choice, "finish_reason", None) or finish
        except openai.APIStatusError:
            raise
        except Exception as exc:  # noqa: BLE001 - a read timeout or a broken connection mid-stream
            partial = "".join(parts)
            timed_out = "timeout" in type(exc).__name__.lower() or "timed out" in str(exc).lower()
            what = (f"no data for {self.idle_timeout_s:g} s" if timed_out else f"connection lost ({_short(exc)})")
            raise AttemptFailed("stalled", f"{what} after {chunks} chunk(s), {len(partial)} characters",
                                partial=partial) from None
        finally:
            try:
                resp.close()
            except Exception:  # noqa: BLE001 - closing a dead stream
                pass
        if chunks == 0:
            raise AttemptFailed("malformed", "the streamed reply held no chunk (an event stream with no data: line; "
                                             "set generation.stream: false for this server)", empty_stream=True)
        text = "".join(parts)
        latency = time.monotonic() - t0
        if usage is not None and getattr(usage, "prompt_tokens", None) is not None:
            return Reply(text, finish, int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0), False, latency)
        return _estimated(text, finish, messages, latency)


    @staticmethod
    def _plain(resp: Any, messages: list[ChatMessage], ctype: str, t0: float) -> Reply:
        import json

        try:
            raw = resp.response.read()
        finally:
            resp.response.close()
        try:
            data = json.loads(raw)
        except ValueError:
            head = " ".join(raw[:200].decode("utf-8", "replace").split())
            raise AttemptFailed("malformed", f"a streamed request got a {ctype or 'untyped'} reply that is neither "
                                             f"an event stream nor JSON: {head!r}") from None
        reply = _reply(_Obj.of(data), messages, time.monotonic() - t0)
        reply.unstreamed = True
        return reply


class _Obj:
    """A JSON reply read by attribute, as ``_reply`` reads the SDK's objects (missing fields are None)."""

    def __init__(self, data: dict[str, object]) -> None:
        self.__dict__.update(data)

    def __getattr__(self, name: str) -> Any:
        return None

    @classmethod
    def of(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return cls({k: cls.of(v) for k, v in value.items()})
        if isinstance(value, list):
            return [cls.of(v) for v in value]
        return value


def _sdk(messages: list[ChatMessage]) -> list[ChatCompletionMessageParam]:
    """Our messages as the openai package types them (a role from the prompts is always one it knows)."""
    return cast("list[ChatCompletionMessageParam]", messages)


def _reply(resp: Any, messages: list[ChatMessage], latency: float) -> Reply:
    if isinstance(resp, (str, bytes)) or not getattr(resp, "choices", None):
        raise ValueError("no choices in the reply")
    choice = resp.choices[0]
    text = _text(choice.message.content)
    usage = getattr(resp, "usage", None)
    if usage is not None and getattr(usage, "prompt_tokens", None) is not None:
        return Reply(text, choice.finish_reason, int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0),
                     False, latency)
    return _estimated(text, choice.finish_reason, messages, latency)


def _estimated(text: str, finish: str | None, messages: list[ChatMessage], latency: float) -> Reply:
    """Servers that report no usage (Ollama, older llama.cpp): about four characters per token."""
    chars_in = sum(len(m["content"]) for m in messages)
    return Reply(text, finish, chars_in // 4 + 1, len(text) // 4 + 1, True, latency)


def server_message(exc: APIStatusError) -> str:
    """The server's own words: ``error.message`` (OpenAI, vLLM), a top-level ``message``, or the body text."""
    body = exc.body
    msg: Any = None  # whatever JSON the server put there
    if isinstance(body, dict):
        inner = body.get("error")
        msg = inner.get("message") if isinstance(inner, dict) else (inner if isinstance(inner, str) else None)
        msg = msg or body.get("message") or body.get("detail")
        code = (inner if isinstance(inner, dict) else body).get("code")
        if isinstance(code, str) and msg and code not in str(msg):  # e.g. context_length_exceeded
            msg = f"{msg} (code {code})"
    elif isinstance(body, str):
        msg = body
    if not msg:
        try:
            msg = exc.response.text
        except Exception:  # noqa: BLE001 - a streamed body that cannot be read again
            msg = None
    return without_credentials(" ".join(str(msg or _short(exc)).split()))[:2000]  # a server may echo the URL


def _param(exc: APIStatusError) -> str | None:
    """The parameter a 400 names (``error.param``), if the server said."""
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error")
        inner = error if isinstance(error, dict) else body
        p = inner.get("param")
        return str(p) if p else None
    return None


def _retry_after(exc: APIStatusError) -> float | None:
    """``Retry-After`` in seconds (a number or an HTTP date), or ``retry-after-ms``."""
    headers = exc.response.headers
    ms = headers.get("retry-after-ms")
    try:
        if ms is not None:
            return max(0.0, float(ms) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        return max(0.0, float(value))
    except ValueError:
        import email.utils

        try:
            when = email.utils.parsedate_to_datetime(str(value))
            return max(0.0, when.timestamp() - time.time())
        except (TypeError, ValueError):
            return None


def _text(content: Any) -> str:
    """Message content as text: some servers send a list of parts instead of a string."""
    if content is None:
        return ""
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(getattr(p, "text", p)) for p in content)
    return str(content)


def _short(exc: BaseException) -> str:
    text = without_credentials(" ".join(str(exc).split()))  # an exception's text may name the URL it reached
    return text[:300] if text else type(exc).__name__
