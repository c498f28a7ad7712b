"""A real OpenAI-compatible chat completions server on 127.0.0.1 that replays a cassette of real exchanges.

For tests that start `ontoask` as a subprocess (`serve`, `mcp`): the subprocess talks to this server with
`--backend openai --base-url URL`, and gets, in order, the replies the embedded model really gave to the same
requests. Each request is checked against the recording exactly as `ontocore.cassette.ReplayChat` does (the
same request key); a request that differs is answered with HTTP 400 and recorded in `mismatches`, so the
test fails with the reason instead of replaying a reply to another question."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ontocore.cassette import request_key


class CassetteServer(ThreadingHTTPServer):
    """`with CassetteServer(path) as server:` ... `server.base_url` ('http://127.0.0.1:PORT/v1')."""

    daemon_threads = True

    def __init__(self, cassette: Path) -> None:
        data = json.loads(Path(cassette).read_text("utf-8"))
        self.entries: list[dict[str, Any]] = data["exchanges"]
        self.model_name = data.get("model") or "recorded"
        self.position = 0
        self.mismatches: list[str] = []
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)
        self.base_url = f"http://127.0.0.1:{self.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> "CassetteServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()

    def reply_to(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        tools = body.get("tools") or None
        max_tokens = body.get("max_tokens", body.get("max_completion_tokens", 1024))
        choice = body.get("tool_choice", "required") if tools else "required"
        key = request_key(body.get("messages") or [], tools, choice, max_tokens, body.get("temperature") or 0.0)
        with self.lock:
            if self.position >= len(self.entries):
                self.mismatches.append(f"request {self.position + 1}: only {len(self.entries)} were recorded")
                return 400, {"error": {"message": "no more recorded exchanges"}}
            entry = self.entries[self.position]
            if key != entry["key"]:
                sent = (body.get("messages") or [{}])[-1].get("content") or ""
                self.mismatches.append(f"request {self.position + 1} differs from the recording: sent "
                                       f"{sent[:200]!r}, recorded {entry['last_message']['content'][:200]!r}")
                return 400, {"error": {"message": "request differs from the recording"}}
            self.position += 1
        reply = entry["reply"]
        message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
        if reply.get("tool_calls"):
            message["tool_calls"] = [{"id": c["id"], "type": "function",
                                      "function": {"name": c["name"], "arguments": c["arguments"]}}
                                     for c in reply["tool_calls"]]
        return 200, {"id": f"replay-{self.position}", "object": "chat.completion", "created": 0,
                     "model": self.model_name,
                     "choices": [{"index": 0, "message": message,
                                  "finish_reason": "tool_calls" if reply.get("tool_calls") else "stop"}],
                     "usage": {"prompt_tokens": reply.get("prompt_tokens", 0),
                               "completion_tokens": reply.get("completion_tokens", 0),
                               "total_tokens": reply.get("prompt_tokens", 0) + reply.get("completion_tokens", 0)}}


class _Handler(BaseHTTPRequestHandler):
    server: CassetteServer

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = {}
        if self.path.rstrip("/").endswith("/chat/completions"):
            status, out = self.server.reply_to(body)
        else:
            status, out = 404, {"error": {"message": f"no such path {self.path}"}}
        data = json.dumps(out).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass
