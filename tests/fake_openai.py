"""A fake OpenAI-compatible chat completions server on 127.0.0.1, for the fault suite: it misbehaves the way
real servers and models do (garbage bodies, HTTP errors that echo the key, slow or no replies, replies
without choices, unknown tools, broken arguments, prose instead of a call, the same call forever).

It tests the loop mechanics and the error handling only; answers from a real model come from cassettes and
the embedded model. Every request is recorded (`requests`)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODES = ("garbage", "http500_echo_key", "http401", "slow", "no_choices", "unknown_tool", "bad_arguments",
         "prose", "same_call", "empty_body", "html", "script", "reasoning", "redirect", "thinking")


def _completion(message: dict[str, Any], usage: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"id": "fake-1", "object": "chat.completion", "created": 0, "model": "fake",
                           "choices": [{"index": 0, "message": {"role": "assistant", **message},
                                        "finish_reason": "stop"}]}
    if usage:
        out["usage"] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    return out


def _tool_call(name: str, arguments: str) -> dict[str, Any]:
    return {"content": None, "tool_calls": [{"id": "call_1", "type": "function",
                                            "function": {"name": name, "arguments": arguments}}]}


class FakeOpenAI:
    """`with FakeOpenAI("garbage") as server:` ... `server.base_url` ('http://127.0.0.1:PORT/v1')."""

    def __init__(self, mode: str, delay_s: float = 5.0, script: dict[str, str] | None = None,
                 location: str = "", think: int = 0, effort_ok: bool = True) -> None:
        """`script` (mode "script"): the reply text for a request whose last message contains the key; prose
        for any other request (the loop mechanics of a partly failing batch)."""
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}")
        self.mode = mode
        self.script = script or {}
        self.location = location  # mode "redirect": where a 307 sends every request
        # mode "thinking": a reasoning model that spends `think` completion tokens thinking before its 5-token reply
        # (cut at the request's budget: finish_reason "length", no content), and reports them as OpenAI does;
        # `effort_ok`: whether its server takes `reasoning_effort` (it thinks half as long at "low")
        self.think, self.effort_ok = think, effort_ok
        self.delay_s = delay_s
        self.requests: list[dict[str, Any]] = []
        self._stop = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                try:
                    request = json.loads(body or b"{}")
                except ValueError:
                    request = {}
                fake.requests.append({"path": self.path, "auth": self.headers.get("Authorization", ""),
                                      "body": request})
                fake.reply(self, request)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    # ---- behaviours -----------------------------------------------------------------------------------
    def reply(self, h: BaseHTTPRequestHandler, request: dict[str, Any]) -> None:
        mode = self.mode
        if mode == "redirect":
            h.send_response(307)
            h.send_header("Location", self.location)
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        if mode == "slow":
            self._stop.wait(self.delay_s)
            return self._send(h, 200, _completion({"content": "late"}))
        if mode == "garbage":
            return self._send_raw(h, 200, b"\x00\xffnot json at all {", "application/json")
        if mode == "empty_body":
            return self._send_raw(h, 200, b"", "application/json")
        if mode == "html":
            return self._send_raw(h, 502, b"<html><body>Bad gateway</body></html>", "text/html")
        if mode == "http500_echo_key":
            key = h.headers.get("Authorization", "").removeprefix("Bearer ")
            return self._send(h, 500, {"error": {"message": f"internal failure for key {key}",
                                                 "type": "server_error"}})
        if mode == "http401":
            return self._send(h, 401, {"error": {"message": "Incorrect API key provided", "type": "auth"}})
        if mode == "no_choices":
            return self._send(h, 200, {"id": "x", "object": "chat.completion", "created": 0, "model": "fake",
                                       "choices": []})
        if mode == "reasoning":  # refuses the parameters OpenAI's reasoning models refuse, as OpenAI words it
            if "max_tokens" in request:
                return self._send(h, 400, {"error": {
                    "message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                               "'max_completion_tokens' instead.", "type": "invalid_request_error",
                    "param": "max_tokens", "code": "unsupported_parameter"}})
            if "temperature" in request and request["temperature"] != 1:
                return self._send(h, 400, {"error": {
                    "message": f"Unsupported value: 'temperature' does not support {request['temperature']} with "
                               "this model. Only the default (1) value is supported.",
                    "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"}})
            return self._send(h, 200, _completion({"content": "ok"}))
        if mode == "thinking":
            if "reasoning_effort" in request and not self.effort_ok:
                return self._send(h, 400, {"error": {
                    "message": "Unrecognized request argument supplied: reasoning_effort",
                    "type": "invalid_request_error", "param": "reasoning_effort", "code": None}})
            budget = int(request.get("max_completion_tokens") or request.get("max_tokens") or 0)
            think = self.think // 2 if request.get("reasoning_effort") == "low" else self.think
            done = budget >= think + 5
            out = _completion({"content": "ok" if done else None})
            out["choices"][0]["finish_reason"] = "stop" if done else "length"
            out["usage"] = {"prompt_tokens": 10, "completion_tokens": think + 5 if done else budget,
                            "total_tokens": 10 + (think + 5 if done else budget),
                            "completion_tokens_details": {"reasoning_tokens": think if done else min(budget, think)}}
            return self._send(h, 200, out)
        if mode == "script":
            last = str((request.get("messages") or [{}])[-1].get("content", ""))
            reply = next((text for key, text in self.script.items() if key in last), "no idea")
            return self._send(h, 200, _completion({"content": reply}))
        tools = request.get("tools") or []
        name = tools[0]["function"]["name"] if tools else ""
        if mode == "unknown_tool":
            return self._send(h, 200, _completion(_tool_call("no_such_tool", "{}")) if tools else
                              _completion({"content": "SELECT nothing FROM nowhere"}))
        if mode == "bad_arguments":
            return self._send(h, 200, _completion(_tool_call(name, '{"broken": ')) if tools else
                              _completion({"content": "{\"broken\": "}))
        if mode == "prose":
            return self._send(h, 200, _completion({"content": "I think the answer is probably fine."}))
        if mode == "same_call":
            return self._send(h, 200, _completion(_tool_call(name, '{"unexpected": 1}')) if tools else
                              _completion({"content": "SELECT x FROM y WHERE"}))
        return self._send(h, 500, {"error": {"message": "unhandled"}})

    def _send(self, h: BaseHTTPRequestHandler, status: int, obj: Any) -> None:
        self._send_raw(h, status, json.dumps(obj).encode(), "application/json")

    @staticmethod
    def _send_raw(h: BaseHTTPRequestHandler, status: int, body: bytes, ctype: str) -> None:
        try:
            h.send_response(status)
            h.send_header("Content-Type", ctype)
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            h.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeouts)
            pass

    # ---- lifecycle ------------------------------------------------------------------------------------
    def __enter__(self) -> "FakeOpenAI":
        threading.Thread(target=self._server.serve_forever, name="fake-openai", daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()


def dead_url() -> str:
    """The URL of a port where nothing listens (bound, then closed)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    time.sleep(0.01)
    return f"http://127.0.0.1:{port}/v1"
