"""A real HTTP server on 127.0.0.1 that records every request it gets (for tests that nothing reaches out)."""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
from typing import Iterator


class Recorder(http.server.ThreadingHTTPServer):
    """Records every request it gets; answers like a SPARQL endpoint (empty results) or a JSON-LD context."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[tuple[str, str, str]] = []
        self.url = f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(http.server.BaseHTTPRequestHandler):
    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        self.server.requests.append((self.command, self.path, body))  # type: ignore[attr-defined]
        data = json.dumps({"@context": {"title": "http://library.example/title"}, "head": {"vars": ["t"]},
                           "results": {"bindings": []}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/sparql-results+json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _answer

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def recording_server() -> Iterator[Recorder]:
    server = Recorder()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
