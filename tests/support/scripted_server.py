"""A tiny OpenAI-compatible chat-completions server on 127.0.0.1 that replays a script.

litellm talks to it over real HTTP through `api_base`, so tests exercise the same request,
response, error and timeout paths a hosted provider would. A POST to a path ending in `/messages` is
answered in Anthropic's Messages format instead (the same script, turned into content blocks), so an
`anthropic/…` model pointed at it with `api_base` shows what litellm sends Anthropic.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Step = dict[str, Any]


def tool_calls(*calls: tuple[str, dict[str, Any] | str]) -> Step:
    """An assistant turn that calls tools; a str argument is sent verbatim (e.g. malformed JSON)."""
    return {"message": {
        "role": "assistant", "content": None,
        "tool_calls": [
            {"id": f"call_{i}", "type": "function",
             "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
            for i, (name, args) in enumerate(calls)
        ],
    }, "finish_reason": "tool_calls"}


def call(name: str, **arguments: Any) -> Step:
    return tool_calls((name, arguments))


def final(text: str) -> Step:
    return {"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}


def spending(tokens_in: int, tokens_out: int, step: Step) -> Step:
    """`step` reporting its own usage, as a real server's answers differ in size."""
    return {**step, "usage": (tokens_in, tokens_out)}


def keeps_nothing(summary: str = "Nothing worth keeping.",
                  reason: str = "a passing remark, not a lasting fact") -> Callable[[dict], Step]:
    """A model that changes nothing: it answers a batch with `summary`, and the accounting's question (a user
    message after its answer, listing facts as `N. fact`) with one `N: reason` line per listed fact."""

    def respond(body: dict[str, Any]) -> Step:
        last = body["messages"][-1]
        if last["role"] == "user" and len(body["messages"]) > 2:
            return final(reason_per_fact(last["content"], reason))
        return final(summary)

    return respond


def reason_per_fact(question: str, reason: str) -> str:
    """An answer to the accounting's question giving `reason` for every fact it lists (`N. fact` lines)."""
    return "\n".join(f"{number}: {reason}" for number in re.findall(r"^(\d+)\. ", question, re.MULTILINE))


def error(status: int, message: str = "scripted failure") -> Step:
    return {"status": status, "error": message}


def slow(seconds: float, step: Step) -> Step:
    return {**step, "delay": seconds}


def raw(body: bytes, status: int = 200) -> Step:
    """A response body sent as is, e.g. something that is not JSON at all."""
    return {"raw": body, "raw_status": status}


@dataclass
class ScriptedServer:
    """Replays `script` one step per request; an exhausted script answers 500 so tests fail loudly."""

    script: list[Step | Callable[[dict[str, Any]], Step]]
    usage: tuple[int, int] | None = (100, 20)  # None: the response carries no usage, as some local servers do
    cached: int = 0  # prompt tokens each response reports as read from the provider's prompt cache
    refuse_tool_role: bool = False  # answer 400 to any request holding a `role: tool` message (no tool support)
    requests: list[dict[str, Any]] = field(default_factory=list)
    authorizations: list[str] = field(default_factory=list)  # each request's Authorization header ('' if none)
    sizes: list[int] = field(default_factory=list)  # each request body's size in bytes, as sent

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server API
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                server.sizes.append(length)
                server.authorizations.append(self.headers.get("Authorization", ""))
                if server.refuse_tool_role and any(m.get("role") == "tool" for m in body.get("messages", [])):
                    server.requests.append(body)
                    self._send(400, {"error": {"message": "Unexpected message role: tool", "type": "invalid_request",
                                               "code": 400}})
                    return
                step = server._next(body)
                if step.get("delay"):
                    time.sleep(step["delay"])
                if "raw" in step:
                    self._send_bytes(step["raw_status"], step["raw"])
                    return
                if "status" in step:
                    payload = {"error": {"message": step["error"], "type": "server_error", "code": step["status"]}}
                    self._send(step["status"], payload)
                    return
                anthropic = self.path.rstrip("/").endswith("/messages")
                self._send(200, server._anthropic(body, step) if anthropic else server._openai(body, step))

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                self._send_bytes(status, json.dumps(payload).encode())

            def _send_bytes(self, status: int, data: bytes) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and hung up, as intended by a slow step

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    def _next(self, body: dict[str, Any]) -> Step:
        with self._lock:
            self.requests.append(body)
            if not self.script:
                return error(500, "script exhausted")
            step = self.script.pop(0)
        return step(body) if callable(step) else step

    def _openai(self, body: dict[str, Any], step: Step) -> dict[str, Any]:
        payload = {
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 0,
            "model": body.get("model", "scripted"),
            "choices": [{"index": 0, "message": step["message"], "finish_reason": step["finish_reason"]}],
        }
        usage = step.get("usage", self.usage)  # a step may report its own (e.g. by the request's size)
        if usage is not None:
            prompt, completion = usage
            payload["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion,
                                "total_tokens": prompt + completion,
                                "prompt_tokens_details": {"cached_tokens": self.cached}}
        return payload

    def _anthropic(self, body: dict[str, Any], step: Step) -> dict[str, Any]:
        """The step as an Anthropic Messages response: text and tool_use blocks, usage with cache reads."""
        message = step["message"]
        blocks: list[dict[str, Any]] = [{"type": "text", "text": message["content"]}] if message.get("content") else []
        for number, tool_call in enumerate(message.get("tool_calls") or []):
            function = tool_call["function"]
            blocks.append({"type": "tool_use", "id": f"toolu_{len(self.requests)}_{number}", "name": function["name"],
                           "input": json.loads(function["arguments"])})
        prompt, completion = step.get("usage", self.usage) or (0, 0)
        return {"id": f"msg_{len(self.requests)}", "type": "message", "role": "assistant",
                "model": body.get("model", "scripted"), "content": blocks,
                "stop_reason": "tool_use" if message.get("tool_calls") else "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": prompt - self.cached, "output_tokens": completion,
                          "cache_read_input_tokens": self.cached, "cache_creation_input_tokens": 0}}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    @property
    def anthropic_url(self) -> str:
        """The base an `anthropic/…` model is given as `api_base`: litellm appends `/v1/messages`."""
        return f"http://127.0.0.1:{self._server.server_port}"

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
