"""A scriptable OpenAI-compatible chat server on 127.0.0.1 for the LLM tests (a real HTTP server in a thread).

``POST /v1/chat/completions`` answers from ``script`` (a list consumed one action per request), then
from ``default`` (an action, or a callable taking the request body and returning one). Actions:
``{"text": str}`` a completion (``finish_reason``, ``completion_tokens`` optional); ``{"status": 503}``
an error (``message``; ``body`` a raw error body; ``headers`` e.g. Retry-After); ``{"hang": seconds}``
no answer for that long; ``{"meet": threading.Barrier}`` no answer until the barrier's parties all wait
(a 500 when it breaks: the requests were not in flight together); ``{"garbage": True}`` a 200 with a
body that is not JSON; ``{"no_usage": True}`` with text: no usage block. A request with ``"stream": true``
gets server-sent events: the text in ``chunks`` pieces ``chunk_delay`` s apart, silent for ``stall_s`` after
``stall_after`` pieces; ``{"ignore_stream": True}`` answers it with one plain JSON body instead (servers that
ignore ``stream``; ``ignore_stream: "sse"`` sends that JSON body labelled as an event stream). Every request
body and its Authorization header are kept in ``requests``.

Server personalities (callables for ``default``): ``ReasoningModel`` (OpenAI o-series/gpt-5: 400 on
max_tokens and on temperature, empty content with finish_reason length when the cap is small),
``VLLMContext`` (vLLM with a small --max-model-len), ``Ollama`` (<think> blocks, no usage),
``LlamaCppSlow`` (a slow CPU server that streams).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Action = dict[str, Any]


class Stub:
    def __init__(self) -> None:
        self.script: list[Action] = []
        self.default: Action | Callable[[dict], Action] = {"text": "no code here"}
        self.requests: list[dict] = []
        self.auth: list[str | None] = []
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_a: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with stub.lock:
                    stub.requests.append(body)
                    stub.auth.append(self.headers.get("Authorization"))
                    action = stub.script.pop(0) if stub.script else stub.default
                if callable(action):
                    action = action(body)
                if body.get("stream") and "status" not in action and not action.get("garbage") \
                        and not action.get("ignore_stream"):
                    stub._stream(self, body, action)
                else:
                    stub._answer(self, body, action)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def start(self) -> Stub:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> Stub:
        return self.start()

    def __exit__(self, *_a: Any) -> None:
        self.stop()

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, payload: bytes, ctype: str = "application/json",
              headers: dict | None = None) -> None:
        try:
            h.send_response(status)
            h.send_header("Content-Type", ctype)
            h.send_header("Content-Length", str(len(payload)))
            for k, v in (headers or {}).items():
                h.send_header(k, str(v))
            h.end_headers()
            h.wfile.write(payload)
        except OSError:  # the client gave up (timeout): nothing to do
            pass

    def _answer(self, h: BaseHTTPRequestHandler, body: dict, action: Action) -> None:
        if "meet" in action:  # answer only once the barrier's other requests are in flight too
            try:
                action["meet"].wait()
                action = {k: v for k, v in action.items() if k != "meet"}
            except threading.BrokenBarrierError:
                action = {"status": 500, "message": "the requests were not in flight together"}
        if "hang" in action:
            time.sleep(float(action["hang"]))
            action = {k: v for k, v in action.items() if k != "hang"} or {"text": "late"}
        if "status" in action:
            err = action.get("body") or {"error": {"message": action.get("message", f"scripted {action['status']}"),
                                                   "type": "server_error"}}
            self._send(h, int(action["status"]), json.dumps(err).encode(), headers=action.get("headers"))
            return
        if action.get("garbage"):
            self._send(h, 200, b"<html>this is not JSON", "application/json")
            return
        text = str(action.get("text", ""))
        prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
        reply: dict[str, Any] = {
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 0,
            "model": body.get("model", "stub"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": action.get("finish_reason", "stop")}],
        }
        if not action.get("no_usage"):
            pin, pout = prompt_chars // 4 + 1, int(action.get("completion_tokens", len(text) // 4 + 1))
            reply["usage"] = {"prompt_tokens": pin, "completion_tokens": pout, "total_tokens": pin + pout}
        ctype = "text/event-stream" if action.get("ignore_stream") == "sse" else "application/json"
        self._send(h, 200, json.dumps(reply).encode(), ctype)

    def _stream(self, h: BaseHTTPRequestHandler, body: dict, action: Action) -> None:
        """Server-sent events, as vLLM, Ollama and llama.cpp stream them; the connection closes at the end."""
        if "hang" in action:
            time.sleep(float(action["hang"]))
        text = str(action.get("text", ""))
        n = max(1, int(action.get("chunks", 4)))
        step = max(1, -(-len(text) // n))
        pieces = [text[i:i + step] for i in range(0, len(text), step)] or [""]
        base = {"id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion.chunk", "created": 0,
                "model": body.get("model", "stub")}
        try:
            h.send_response(200)
            h.send_header("Content-Type", "text/event-stream")
            h.send_header("Connection", "close")
            h.end_headers()
            for i, piece in enumerate(pieces):
                if i and action.get("chunk_delay"):
                    time.sleep(float(action["chunk_delay"]))
                if action.get("stall_after") is not None and i == int(action["stall_after"]):
                    time.sleep(float(action.get("stall_s", 5)))
                delta = {"role": "assistant", "content": piece} if i == 0 else {"content": piece}
                chunk = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
                h.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                h.wfile.flush()
            last: dict[str, Any] = {**base, "choices": [{"index": 0, "delta": {},
                                                         "finish_reason": action.get("finish_reason", "stop")}]}
            h.wfile.write(b"data: " + json.dumps(last).encode() + b"\n\n")
            if not action.get("no_usage") and (body.get("stream_options") or {}).get("include_usage"):
                prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
                pin, pout = prompt_chars // 4 + 1, int(action.get("completion_tokens", len(text) // 4 + 1))
                usage = {**base, "choices": [], "usage": {"prompt_tokens": pin, "completion_tokens": pout,
                                                          "total_tokens": pin + pout}}
                h.wfile.write(b"data: " + json.dumps(usage).encode() + b"\n\n")
            h.wfile.write(b"data: [DONE]\n\n")
            h.wfile.flush()
        except OSError:  # the client gave up (idle timeout)
            pass
        h.close_connection = True


def user_text(body: dict) -> str:
    return "\n".join(str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "user")


def role_of(body: dict) -> str:
    text = user_text(body)
    for marker, role in (("was rejected by", "repair"), ("Improve the PPA", "mutate"), ("Judge it first", "critique"),
                         ("Write the Verilog", "generate")):
        if marker in text:
            return role
    return "unknown"


# ---- the mac_small design of tests/data/flow (y = 10*a + b + c + d, combinational) ---------------------
HEADER = "module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output [11:0] y);"
VALID = [
    HEADER + "\n  assign y = a * 12'd10 + b + c + d;\nendmodule\n",
    HEADER + "\n  assign y = (a << 3) + (a << 1) + b + c + d;\nendmodule\n",
    HEADER + "\n  wire [11:0] a10 = {1'b0, a, 3'b000} + {3'b000, a, 1'b0};\n"
    "  assign y = a10 + ((b + c) + {4'd0, d});\nendmodule\n",
]
LATCHY = ("module mac_small(input [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d, output reg [11:0] y);\n"
          "  always @(*) begin\n    if (a != 8'd255) y = a * 12'd10 + b + c + d;\n  end\nendmodule\n")
LATCH_RULE_MARK = "never infer latches"


def fenced(code: str, prose: bool = True) -> str:
    text = f"```verilog\n{code}```\n"
    return f"Here is the design.\n\n{text}\nIt is synthesizable." if prose else text


class MacResponder:
    """Answers every role for mac_small with plausible code. ``latch_rate``: the share of generate
    answers that are latch-y when the prompt lacks the latch rule (``latch_rate_with_rule`` when it has it)."""

    def __init__(self, latch_rate: float = 0.0, latch_rate_with_rule: float = 0.0) -> None:
        self.latch_rate = latch_rate
        self.latch_rate_with_rule = latch_rate_with_rule
        self.seen: dict[str, int] = {}

    def __call__(self, body: dict) -> Action:
        role = role_of(body)
        n = self.seen[role] = self.seen.get(role, 0) + 1
        seed = int(body.get("seed", 0) or 0)
        if role == "generate":
            rate = self.latch_rate_with_rule if LATCH_RULE_MARK in user_text(body) else self.latch_rate
            # deterministic "coin": spread the seeds over [0, 1)
            tag = f"// candidate {seed}\n"  # distinct text per request: the flow does not merge them
            if ((seed * 2654435761) % 1000) / 1000 < rate:
                return {"text": fenced(tag + LATCHY)}
            return {"text": fenced(tag + VALID[seed % len(VALID)])}
        if role == "repair":
            return {"text": "<think>the latch comes from the missing else</think>\n" + fenced(VALID[0])}
        if role == "mutate":
            return {"text": fenced(VALID[1 + n % 2], prose=False)}
        if role == "critique":
            return {"text": "ACCEPT\nlooks equivalent"}
        return {"text": "I do not understand."}


# ---- server personalities --------------------------------------------------------------------------------
class ReasoningModel:
    """An OpenAI reasoning model (o-series, gpt-5) as its API answers: a 400 for ``max_tokens`` (it wants
    ``max_completion_tokens``) and for any ``temperature`` but 1, and, when the output cap is below what
    its reasoning takes (``reasoning_tokens``), an empty message with finish_reason "length".
    ``rejected`` counts the 400s per parameter."""

    def __init__(self, answer: Callable[[dict], Action], reasoning_tokens: int = 6000) -> None:
        self.answer = answer
        self.reasoning_tokens = reasoning_tokens
        self.rejected: dict[str, int] = {}
        self.cut_off = 0
        self.lock = threading.Lock()

    def _reject(self, param: str, message: str, code: str) -> Action:
        with self.lock:
            self.rejected[param] = self.rejected.get(param, 0) + 1
        return {"status": 400, "body": {"error": {"message": message, "type": "invalid_request_error", "param": param,
                                                  "code": code}}}

    def __call__(self, body: dict) -> Action:
        if "max_tokens" in body:
            return self._reject("max_tokens", "Unsupported parameter: 'max_tokens' is not supported with this model. "
                                              "Use 'max_completion_tokens' instead.", "unsupported_parameter")
        if "temperature" in body and body["temperature"] != 1:
            return self._reject("temperature", "Unsupported value: 'temperature' does not support "
                                               f"{body['temperature']} with this model. Only the default (1) "
                                               "value is supported.",
                                "unsupported_value")
        cap = int(body.get("max_completion_tokens") or 10**9)
        if cap < self.reasoning_tokens:
            with self.lock:
                self.cut_off += 1
            return {"text": "", "finish_reason": "length", "completion_tokens": cap}
        out = dict(self.answer(body))
        out["completion_tokens"] = self.reasoning_tokens + len(str(out.get("text", ""))) // 4
        return out


class VLLMContext:
    """vLLM started with a small ``--max-model-len``: prompt (about 4 characters a token) plus
    ``max_tokens`` beyond it is vLLM's 400, in vLLM's words and top-level error body."""

    def __init__(self, answer: Callable[[dict], Action], max_model_len: int) -> None:
        self.answer = answer
        self.max_model_len = max_model_len
        self.rejected = 0

    @staticmethod
    def prompt_tokens(body: dict) -> int:
        return sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) // 4 + 1

    def __call__(self, body: dict) -> Action:
        p, m = self.prompt_tokens(body), int(body.get("max_tokens") or 0)
        if p + m > self.max_model_len:
            self.rejected += 1
            msg = (f"This model's maximum context length is {self.max_model_len} tokens. However, you requested "
                   f"{p + m} tokens ({p} in the messages, {m} in the completion). Please reduce the length of the "
                   "messages or completion.")
            return {"status": 400, "body": {"object": "error", "message": msg, "type": "BadRequestError",
                                            "param": None, "code": 400}}
        return self.answer(body)


class Ollama:
    """Ollama's OpenAI-compatible endpoint serving a reasoning model (qwen3, deepseek-r1): the reply
    opens with a <think> block and carries no usage field."""

    def __init__(self, answer: Callable[[dict], Action]) -> None:
        self.answer = answer

    def __call__(self, body: dict) -> Action:
        out = dict(self.answer(body))
        thought = "<think>\nThe user wants Verilog. Let me think about widths {a, b}.\n</think>\n"
        out["text"] = thought + str(out.get("text", ""))
        out["no_usage"] = True
        return out


class LlamaCppSlow:
    """llama.cpp's server on a CPU: tokens trickle out, ``chunk_delay`` s apart, far longer in all than a
    whole-request timeout; ``stall_after`` chunks it goes silent for ``stall_s`` (a stuck server)."""

    def __init__(self, answer: Callable[[dict], Action], chunks: int = 8, chunk_delay: float = 0.3,
                 stall_after: int | None = None, stall_s: float = 5.0) -> None:
        self.answer = answer
        self.extra = {"chunks": chunks, "chunk_delay": chunk_delay, "stall_after": stall_after, "stall_s": stall_s}

    def __call__(self, body: dict) -> Action:
        return {**self.answer(body), **self.extra}
