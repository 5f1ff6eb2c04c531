"""A scriptable OpenAI-compatible chat server on 127.0.0.1 for the LLM tests (a real HTTP server in a thread).

``POST /v1/chat/completions`` answers from ``script`` (a list consumed one action per request), then
from ``default`` (an action, or a callable taking the request body and returning one). Actions:
``{"text": str}`` a completion; ``{"status": 503}`` an error; ``{"hang": seconds}`` no answer for that
long; ``{"garbage": True}`` a 200 with a body that is not JSON; ``{"no_usage": True}`` with text: no
usage block. Every request body and its Authorization header are kept in ``requests``.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

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
                stub._answer(self, body, action)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def start(self) -> "Stub":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> "Stub":
        return self.start()

    def __exit__(self, *_a: Any) -> None:
        self.stop()

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, payload: bytes, ctype: str = "application/json") -> None:
        try:
            h.send_response(status)
            h.send_header("Content-Type", ctype)
            h.send_header("Content-Length", str(len(payload)))
            h.end_headers()
            h.wfile.write(payload)
        except OSError:  # the client gave up (timeout): nothing to do
            pass

    def _answer(self, h: BaseHTTPRequestHandler, body: dict, action: Action) -> None:
        if "hang" in action:
            time.sleep(float(action["hang"]))
            action = {k: v for k, v in action.items() if k != "hang"} or {"text": "late"}
        if "status" in action:
            err = {"error": {"message": action.get("message", f"scripted {action['status']}"), "type": "server_error"}}
            self._send(h, int(action["status"]), json.dumps(err).encode())
            return
        if action.get("garbage"):
            self._send(h, 200, b"<html>this is not JSON", "application/json")
            return
        text = str(action.get("text", ""))
        prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
        reply: dict[str, Any] = {
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 0,
            "model": body.get("model", "stub"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        }
        if not action.get("no_usage"):
            pin, pout = prompt_chars // 4 + 1, len(text) // 4 + 1
            reply["usage"] = {"prompt_tokens": pin, "completion_tokens": pout, "total_tokens": pin + pout}
        self._send(h, 200, json.dumps(reply).encode())


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
